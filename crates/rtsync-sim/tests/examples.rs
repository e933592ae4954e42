//! The bundled examples show what the README and their comments say.

use rtsync_model::{Protocol, Time, load_file};
use rtsync_sim::{Options, simulate};

/// README, "Simulation": `pip-chained` shows chained blocking. Worked by
/// hand from the offsets in the spec: `ctrl` (released at 4 ms) waits
/// 1.5 ms for `bus` (held by `comms` since 3.5 ms) and then 2.5 ms for
/// `log` (held by `logger` since 2 ms): 4 ms blocked, done at 10.5 ms.
/// Under PCP `comms` cannot take `bus` while `logger` holds `log` (whose
/// ceiling is `ctrl`'s priority), so `ctrl` waits once, 2 ms for `log`.
#[test]
fn pip_chained_blocks_ctrl_twice_under_pip_and_once_under_pcp() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/pip-chained.toml"
    );
    let (sys, _) = load_file(std::path::Path::new(path)).unwrap();
    let o = Options {
        horizon: Time::from_ms(20),
        ..Options::default()
    };
    let (r, _) = simulate(&sys, &o).unwrap();
    let ctrl = &r.tasks[0];
    assert_eq!(ctrl.name, "ctrl");
    assert_eq!(ctrl.max_blocking.local, Time::from_ms(4));
    assert_eq!(ctrl.max_response, Some(Time::from_us(6500)));

    let (r, _) = simulate(&sys.with_protocol(Protocol::Pcp), &o).unwrap();
    let ctrl = &r.tasks[0];
    assert_eq!(ctrl.max_blocking.local, Time::from_ms(2));
    assert!(ctrl.max_response < Some(Time::from_us(6500)));
}
