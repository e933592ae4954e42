//! Where theory says analysis is exact, simulation must meet it exactly:
//! independent tasks on one CPU under fixed priorities, all released at 0
//! (the critical instant, Liu and Layland 1973), every job at its WCET.
//! The first job of every task then responds in exactly its RTA bound.

use proptest::prelude::*;
use rtsync_analysis::generate::{GenConfig, Periods, Utilizations, generate};
use rtsync_analysis::{Options as AOpts, Response, analyze};
use rtsync_model::{Protocol, Time};
use rtsync_sim::{Options, simulate};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn first_jobs_meet_the_rta_bound_exactly(seed in any::<u64>(), n in 2usize..7, u in 0.3f64..0.95) {
        let cfg = GenConfig {
            cpus: 1,
            tasks: n,
            utilization: u,
            utilizations: Utilizations::UUniFast,
            periods: Periods::Uniform { min: Time::from_ms(1), max: Time::from_ms(50) },
            resources: 0,
            protocol: Protocol::Pip,
            partition: None,
            deadline_min: 0.6,
            ..GenConfig::default()
        };
        let sys = generate(&cfg, seed, 0);
        let an = analyze(&sys, &AOpts::default()).unwrap();
        let longest = sys.tasks.iter().map(|t| t.period).max().unwrap();
        let opts = Options { horizon: longest, ..Options::default() };
        let (res, _) = simulate(&an.system, &opts).unwrap();
        for (st, at) in res.tasks.iter().zip(&an.result.tasks) {
            if let Response::Bounded(r) = at.response && r <= at.deadline {
                // The first job completes within the first period.
                prop_assert_eq!(st.max_response, Some(r), "task {}", st.name);
            }
        }
    }
}
