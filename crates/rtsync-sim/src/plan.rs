//! A schedule's free choices, fixed: what the worst-case search varies.
//!
//! A sporadic task system leaves the adversary four choices per job: when
//! the first job arrives (the offset), how much later than one period each
//! later job arrives, how much of its release jitter each job suffers, and
//! how long each of its computations and self-suspensions takes (anything
//! up to its worst case). A [`Plan`] names those choices for the first
//! jobs of every task; jobs beyond what it names arrive periodically,
//! without jitter, and take their worst case. A simulation run under a
//! plan is deterministic, so a plan that exposes a violation is a
//! reproducible witness.

use rtsync_model::{System, Time};

/// The choices for one task's jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TaskPlan {
    /// Arrival of the first job.
    pub offset: Time,
    /// `delays[k]`: how much later than one period after job `k` job
    /// `k + 1` arrives (the sporadic slack). Missing entries: 0.
    pub delays: Vec<Time>,
    /// `jitter[k]`: job `k`'s release after its arrival, capped at the
    /// task's jitter. Missing entries: 0.
    pub jitter: Vec<Time>,
    /// `exec[k][o]`: the duration of job `k`'s `o`-th timed operation
    /// (computation or self-suspension, in program order), capped at its
    /// worst case and at least 1 ns where the worst case is positive.
    /// Missing jobs or operations: the worst case.
    pub exec: Vec<Vec<Time>>,
}

impl TaskPlan {
    /// The gap after job `k` beyond the period.
    pub fn delay(&self, k: u64) -> Time {
        at(&self.delays, k)
    }

    /// Job `k`'s release jitter (before capping at the task's).
    pub fn jitter(&self, k: u64) -> Time {
        at(&self.jitter, k)
    }

    /// Job `k`'s duration for timed operation `o` given its worst case.
    pub fn exec(&self, k: u64, o: usize, worst: Time) -> Time {
        match usize::try_from(k)
            .ok()
            .and_then(|k| self.exec.get(k))
            .and_then(|ops| ops.get(o))
        {
            Some(&d) if !worst.is_zero() => d.clamp(Time::from_ns(1), worst),
            _ => worst,
        }
    }

    /// When job `k` arrives, before jitter (saturating).
    pub fn arrival(&self, k: u64, period: Time) -> Time {
        let mut a = self.offset;
        for j in 0..k {
            a = a.saturating_add(period).saturating_add(self.delay(j));
        }
        a
    }
}

fn at(v: &[Time], k: u64) -> Time {
    usize::try_from(k)
        .ok()
        .and_then(|k| v.get(k))
        .copied()
        .unwrap_or(Time::ZERO)
}

/// The choices for every task, by task index (missing tasks: offset 0,
/// periodic, no jitter, worst case).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Plan {
    /// Per task, by index.
    pub tasks: Vec<TaskPlan>,
}

impl Plan {
    /// Whether the plan makes any choice: an offset, a delay, a jitter or
    /// a shortened operation. One that makes none is the synchronous,
    /// periodic, worst-case run, which needs no search to find.
    pub fn makes_choices(&self) -> bool {
        self.tasks.iter().any(|t| *t != TaskPlan::default())
    }

    /// A plan with only offsets (the rest periodic, worst case).
    pub fn offsets(offsets: impl IntoIterator<Item = Time>) -> Plan {
        Plan {
            tasks: offsets
                .into_iter()
                .map(|offset| TaskPlan {
                    offset,
                    ..TaskPlan::default()
                })
                .collect(),
        }
    }

    /// A horizon that lets every job the plan makes a choice for (and the
    /// first job of every task) finish or miss: just past the latest such
    /// job's arrival plus its deadline. Later jobs run as far as the
    /// horizon lets them.
    pub fn horizon(&self, sys: &System) -> Time {
        (0..sys.tasks.len())
            .map(|t| self.horizon_of(sys, t))
            .max()
            .unwrap_or(Time::ZERO)
    }

    /// When task `t`'s last planned job is past its deadline, 1 ns after
    /// it: a job still running at its deadline is late only once time
    /// passes it, and a simulation stopped at the deadline itself would
    /// not report the miss. The simulation a search runs for `t` alone
    /// need go no further.
    pub fn horizon_of(&self, sys: &System, t: usize) -> Time {
        let task = &sys.tasks[t];
        let p = self.task(t);
        let k = p.delays.len().max(p.jitter.len()).max(p.exec.len()).max(1);
        p.arrival(k as u64 - 1, task.period)
            .saturating_add(p.jitter(k as u64 - 1).min(task.jitter))
            .saturating_add(task.deadline)
            .saturating_add(Time::from_ns(1))
    }

    /// The plan of task `t` (a default one where none is given).
    pub fn task(&self, t: usize) -> &TaskPlan {
        static NONE: TaskPlan = TaskPlan {
            offset: Time::ZERO,
            delays: Vec::new(),
            jitter: Vec::new(),
            exec: Vec::new(),
        };
        self.tasks.get(t).unwrap_or(&NONE)
    }
}

impl Plan {
    /// The plan as a TOML file a person can read and `rtsync simulate
    /// --plan` replays: one `[[task]]` by name per task with a choice that
    /// differs from the default (the others are left out), times with
    /// units.
    pub fn to_toml(&self, sys: &System) -> String {
        let list = |v: &[Time]| {
            let parts: Vec<String> = v.iter().map(|t| format!("\"{t}\"")).collect();
            format!("[{}]", parts.join(", "))
        };
        let mut out = String::from(
            "# Release offsets, arrival delays, jitter and durations of the first jobs\n\
             # (rtsync simulate SPEC --plan THIS); later jobs are periodic at their worst case.\n",
        );
        let mut any = false;
        for (t, task) in sys.tasks.iter().enumerate() {
            let p = self.task(t);
            if *p == TaskPlan::default() {
                // Named or not, a task keeps the defaults.
                continue;
            }
            any = true;
            out.push_str(&format!(
                "\n[[task]]\nname = \"{}\"\noffset = \"{}\"\n",
                task.name, p.offset
            ));
            if p.delays.iter().any(|d| !d.is_zero()) {
                out.push_str(&format!("delays = {}\n", list(&p.delays)));
            }
            if p.jitter.iter().any(|d| !d.is_zero()) {
                out.push_str(&format!("jitter = {}\n", list(&p.jitter)));
            }
            if !p.exec.is_empty() {
                let jobs: Vec<String> = p.exec.iter().map(|j| list(j)).collect();
                out.push_str(&format!("exec = [{}]\n", jobs.join(", ")));
            }
        }
        if !any {
            out.push_str("\n# Every task: the defaults (released together at 0).\n");
        }
        out
    }

    /// The plan's choices in words, one per choice, for a person reading a
    /// search's result beside its schedule (`simulate --search` prints
    /// them; the file [`Plan::to_toml`] writes holds the same), the first
    /// releases in time order: "logger released at 1ns", "ctrl's job 2
    /// arrives 1ms late", "ctrl's job 1
    /// released 50us after it arrives", "ctrl's job 1, timed operation 2:
    /// 300us". Times as the spec writes them; a duration the plan names
    /// is listed whatever its value (a plan cut down keeps only those
    /// needed).
    pub fn describe(&self, sys: &System) -> Vec<String> {
        // The releases first, in time order: the order they happen in.
        let mut first: Vec<(Time, usize)> = (0..sys.tasks.len())
            .map(|t| (self.task(t).offset, t))
            .filter(|(o, _)| !o.is_zero())
            .collect();
        first.sort();
        let mut out: Vec<String> = (first.iter())
            .map(|&(o, t)| format!("{} released at {o}", sys.tasks[t].name))
            .collect();
        for (t, task) in sys.tasks.iter().enumerate() {
            let p = self.task(t);
            let name = &task.name;
            for (k, d) in p.delays.iter().enumerate().filter(|(_, d)| !d.is_zero()) {
                out.push(format!("{name}'s job {} arrives {d} late", k + 2));
            }
            for (k, j) in p.jitter.iter().enumerate().filter(|(_, j)| !j.is_zero()) {
                out.push(format!(
                    "{name}'s job {} released {j} after it arrives",
                    k + 1
                ));
            }
            for (k, ops) in p.exec.iter().enumerate() {
                for (o, d) in ops.iter().enumerate() {
                    out.push(format!(
                        "{name}'s job {}, timed operation {}: {d}",
                        k + 1,
                        o + 1
                    ));
                }
            }
        }
        out
    }

    /// Reads a plan written by [`Plan::to_toml`] (or by hand) for `sys`.
    /// Tasks are named; a task not named keeps the default choices.
    pub fn from_toml(text: &str, sys: &System) -> Result<Plan, String> {
        let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
        let mut plan = Plan {
            tasks: vec![TaskPlan::default(); sys.tasks.len()],
        };
        let Some(list) = doc.get("task") else {
            return Ok(plan);
        };
        let list = list
            .as_array()
            .ok_or("`task` must be an array of tables: write [[task]] sections")?;
        for (k, entry) in list.iter().enumerate() {
            let at = format!("task entry {}", k + 1);
            let e = entry.as_table().ok_or(format!("{at}: expected a table"))?;
            for key in e.keys() {
                if !["name", "offset", "delays", "jitter", "exec"].contains(&key.as_str()) {
                    return Err(format!(
                        "{at}: unknown key `{key}`; a plan's task has name, offset, delays, jitter, exec"
                    ));
                }
            }
            let name = e
                .get("name")
                .and_then(|v| v.as_str())
                .ok_or(format!("{at}: missing `name = \"TASK\"`"))?;
            let t = sys
                .tasks
                .iter()
                .position(|x| x.name == name)
                .ok_or(format!("{at}: no task `{name}` in the spec"))?;
            let time = |v: &toml::Value, what: &str| -> Result<Time, String> {
                let s = v.as_str().ok_or(format!(
                    "{at} ({name}): {what} must be a time string like \"1ms\""
                ))?;
                Time::parse(s).map_err(|e| format!("{at} ({name}): {what}: {e}"))
            };
            let times = |v: &toml::Value, what: &str| -> Result<Vec<Time>, String> {
                v.as_array()
                    .ok_or(format!("{at} ({name}): {what} must be a list of times"))?
                    .iter()
                    .map(|x| time(x, what))
                    .collect()
            };
            let p = &mut plan.tasks[t];
            if let Some(v) = e.get("offset") {
                p.offset = time(v, "offset")?;
            }
            if let Some(v) = e.get("delays") {
                p.delays = times(v, "delays")?;
            }
            if let Some(v) = e.get("jitter") {
                p.jitter = times(v, "jitter")?;
            }
            if let Some(v) = e.get("exec") {
                p.exec = v
                    .as_array()
                    .ok_or(format!(
                        "{at} ({name}): exec must be a list of lists of times"
                    ))?
                    .iter()
                    .map(|j| times(j, "exec"))
                    .collect::<Result<_, _>>()?;
            }
        }
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_choices_are_periodic_worst_case() {
        let p = TaskPlan {
            offset: Time::from_us(5),
            delays: vec![Time::from_us(1)],
            jitter: vec![],
            exec: vec![vec![Time::from_us(3), Time::ZERO]],
        };
        let t = Time::from_us(100);
        assert_eq!(p.arrival(0, t), Time::from_us(5));
        assert_eq!(p.arrival(1, t), Time::from_us(106));
        assert_eq!(p.arrival(2, t), Time::from_us(206));
        // Capped at the worst case, at least 1 ns, missing = worst.
        assert_eq!(p.exec(0, 0, Time::from_us(2)), Time::from_us(2));
        assert_eq!(p.exec(0, 1, Time::from_us(2)), Time::from_ns(1));
        assert_eq!(p.exec(0, 2, Time::from_us(2)), Time::from_us(2));
        assert_eq!(p.exec(1, 0, Time::from_us(2)), Time::from_us(2));
        assert_eq!(p.exec(0, 1, Time::ZERO), Time::ZERO);
        assert_eq!(Plan::default().task(3).delay(7), Time::ZERO);
    }

    /// Every kind of choice in words, the releases first in time order
    /// (`b` before `a`, though `a` is the first task), nothing for a task
    /// left at the defaults (`c`) or for a zero delay or jitter.
    #[test]
    fn a_plans_choices_are_told_in_words() {
        let task =
            |n: &str| format!("[[task]]\nname = \"{n}\"\nperiod = \"10ms\"\nwcet = \"1ms\"\n");
        let src = format!("{}{}{}", task("a"), task("b"), task("c"));
        let sys = rtsync_model::load_str(&src, None).unwrap().0;
        let plan = Plan {
            tasks: vec![
                TaskPlan {
                    offset: Time::from_us(300),
                    delays: vec![Time::ZERO, Time::from_ms(1)],
                    jitter: vec![Time::from_us(50), Time::ZERO],
                    exec: vec![vec![Time::from_us(200)]],
                },
                TaskPlan {
                    offset: Time::from_ns(1),
                    ..TaskPlan::default()
                },
                TaskPlan::default(),
            ],
        };
        assert_eq!(
            plan.describe(&sys),
            [
                "b released at 1ns",
                "a released at 300us",
                "a's job 3 arrives 1ms late",
                "a's job 1 released 50us after it arrives",
                "a's job 1, timed operation 1: 200us",
            ]
        );
        assert!(Plan::offsets([Time::ZERO; 3]).describe(&sys).is_empty());
    }
}
