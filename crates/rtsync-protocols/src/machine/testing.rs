//! Machines for the unit tests of the arbitration modules: systems built
//! from structs (no spec text), every resource under one protocol.

use super::*;
use rtsync_model::{
    Platform, Protocol, Resource, Scheduler, Segment, SourceMap, System, Task, Time,
};

/// A task: its priority, its CPU, and its sections, each a path of
/// resources from the outermost in.
pub(super) type Shape<'a> = (u32, usize, &'a [&'a [usize]]);

/// The machine of `tasks` on `cpus` CPUs with `resources` resources
/// under `protocol` (synchronization CPU: the last), each thread's base
/// key its priority.
pub(super) fn machine(protocol: Protocol, cpus: usize, resources: usize, tasks: &[Shape]) -> Locks {
    fn section(path: &[usize]) -> Segment {
        Segment::Lock {
            resource: path[0],
            units: 1,
            body: vec![match path.len() {
                1 => Segment::Compute(Time::from_us(10)),
                _ => section(&path[1..]),
            }],
        }
    }
    let sys = System {
        name: None,
        platform: Platform {
            cpus,
            scheduler: Scheduler::Fp,
        },
        resources: (0..resources)
            .map(|r| Resource {
                name: format!("r{r}"),
                protocol,
                units: 1,
                sync_cpu: protocol.needs_sync_cpu().then_some(cpus - 1),
                ceiling: None,
            })
            .collect(),
        tasks: tasks
            .iter()
            .enumerate()
            .map(|(i, &(priority, cpu, sections))| Task {
                name: format!("t{i}"),
                period: Time::from_ms(100),
                deadline: Time::from_ms(100),
                jitter: Time::ZERO,
                offset: Time::ZERO,
                priority,
                cpu: Some(cpu),
                body: sections.iter().map(|p| section(p)).collect(),
            })
            .collect(),
        source: SourceMap::default(),
        components: None,
    };
    let errors: Vec<String> = rtsync_model::validate(&sys)
        .errors()
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut m = Locks::new(Config::new(&sys));
    for (t, &(priority, _, _)) in tasks.iter().enumerate() {
        m.set_base(t, priority as u64, t as u64).unwrap();
    }
    m
}
