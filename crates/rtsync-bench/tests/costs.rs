//! `costs::for_system`, what `rtsync run` charges: a component system's
//! request costs are measured with the kernel's and the locks', a plain
//! system's are left at nothing. Skipped, with the reason printed, where
//! SCHED_FIFO is not permitted (the costs are measured on real-time
//! threads).

use rtsync_analysis::components::Overheads;
use rtsync_bench::costs::for_system;
use rtsync_model::System;
use std::path::Path;

fn example(name: &str) -> System {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    rtsync_model::spec::load_file(&path)
        .unwrap_or_else(|d| panic!("{d}"))
        .0
}

#[test]
fn a_component_system_is_charged_its_requests_and_a_plain_one_is_not() {
    if let Err(why) = rtsync_rt::sys::probe_realtime() {
        eprintln!("skipped: {why}");
        return;
    }
    let comp = example("camkes-fig3.toml");
    assert!(comp.components.is_some());
    let (costs, left_out) = for_system(&comp).expect("measured");
    assert_eq!(left_out, None);
    let c = costs.profile.component;
    assert!(
        !c.prop_call.is_zero() && !c.fix_call.is_zero() && !c.pip_unlocked.is_zero(),
        "a component system's request costs are measured: {c:?}"
    );
    assert!(!costs.profile.context_switch.is_zero());

    let plain = example("pip-chained.toml");
    assert!(plain.components.is_none());
    let (costs, left_out) = for_system(&plain).expect("measured");
    assert_eq!(left_out, None);
    assert_eq!(costs.profile.component, Overheads::default());
    assert!(!costs.profile.context_switch.is_zero());
}
