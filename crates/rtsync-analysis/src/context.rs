//! What every analysis reads: the system's per-task parameters in flat
//! vectors beside the derived [`Facts`], so that inner loops index arrays.

use rtsync_model::{Cpu, Facts, Mix, Priority, ResourceId, Scheduler, System, TaskId, Time};
use std::fmt;
use std::str::FromStr;

/// Which form of the blocking bounds to use: three steps, each never
/// above the one before and dearer to compute.
///
/// `Fixed` is each protocol's closed-form bound per request, which reads
/// no response time through its blocking terms (Rajkumar's per-request
/// DPCP wait, for one; docs/ANALYSIS.md). `Classic`, the default, lowers it with
/// the job-window form where the protocol has one
/// ([`crate::blocking::has_job_window`]): a job's requests wait at most for
/// the requests other jobs issue within its window, which reads everyone's
/// response time, so the whole system is iterated to a fixed point (on the
/// benchmark's 80-task sets, two and a half to three times the time of
/// `Fixed`, and up to 140 times the sets accepted; docs/PERFORMANCE.md). `Lp` adds the linear-programming bounds of
/// Brandenburg (RTAS 2013) where rtsync has one ([`crate::blocking::lp`]):
/// each term is then the smaller of the classic and the LP bound, both
/// sound, so `Lp` never answers above `Classic`. Under EDF, which charges
/// the fixed terms ([`crate::blocking::lp_applies`]), the three agree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BoundForm {
    /// The closed-form bounds per request, without job windows.
    Fixed,
    /// The closed-form bounds, lowered by the job windows.
    #[default]
    Classic,
    /// The classic bounds, lowered by the LP bounds where a protocol has one.
    Lp,
}

impl FromStr for BoundForm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fixed" => Ok(BoundForm::Fixed),
            "classic" => Ok(BoundForm::Classic),
            "lp" => Ok(BoundForm::Lp),
            _ => Err(format!(
                "unknown analysis `{s}`; expected fixed, classic or lp"
            )),
        }
    }
}

impl BoundForm {
    /// What the form charges, in a sentence for a report.
    pub fn describe(self) -> &'static str {
        match self {
            BoundForm::Fixed => {
                "each request's closed-form bound on its own, no job windows (--analysis fixed)"
            }
            BoundForm::Classic => {
                "the closed forms, each lowered by its job-window form where the protocol has \
                 one (--analysis classic, `rtsync analyze`'s default)"
            }
            BoundForm::Lp => {
                "the classic bounds, each term lowered by the linear program's where the \
                 protocol has one (--analysis lp)"
            }
        }
    }
}

impl fmt::Display for BoundForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoundForm::Fixed => "fixed",
            BoundForm::Classic => "classic",
            BoundForm::Lp => "lp",
        })
    }
}

/// The system's per-task parameters in flat vectors beside its facts: what
/// every analysis reads.
#[derive(Clone)]
pub struct Context<'a> {
    /// The system.
    pub sys: &'a System,
    /// Its derived facts.
    pub f: Facts,
    /// Per task.
    pub period: Vec<Time>,
    /// Per task.
    pub deadline: Vec<Time>,
    /// Per task.
    pub jitter: Vec<Time>,
    /// How the resources' protocols combine, which picks the blocking
    /// bound ([`crate::blocking`]).
    pub mix: Mix,
    /// Fixed priorities or EDF.
    pub scheduler: Scheduler,
    /// Classic bounds, or classic lowered by LP bounds.
    pub form: BoundForm,
    /// `[resource][cpu]`: highest preemption level among the resource's
    /// users on that CPU (the EDF ceilings), computed once.
    level_ceiling: Vec<Vec<u32>>,
    /// Under EDF, which tasks count as lower ([`Context::is_lower`]).
    lower: EdfLower,
}

/// Under EDF, the jobs that can block a window's jobs, as
/// [`Context::is_lower`] reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EdfLower {
    /// Those due after any window the job is in: `D_j > D_i - J_i`.
    Jitter,
    /// Every other task's ([`Context::with_late_jobs`]).
    All,
    /// Those due after a window of this length: `D_j > L`
    /// ([`Context::with_window`]).
    Beyond(Time),
}

impl<'a> Context<'a> {
    /// The context of `sys`, with the classic bounds.
    pub fn new(sys: &'a System) -> Context<'a> {
        Context::with_form(sys, BoundForm::Classic)
    }

    /// The context of `sys`, with the bounds of `form`.
    pub fn with_form(sys: &'a System, form: BoundForm) -> Context<'a> {
        let f = Facts::new(sys);
        // A refused mix reaches here only from a caller that skipped
        // validation (`analyze` validates first); its resources then count
        // as having no protocol.
        let mix = sys.mix().unwrap_or(Mix::Empty);
        let mut level_ceiling = Vec::new();
        if sys.platform.scheduler == Scheduler::Edf {
            level_ceiling = vec![vec![0; f.cpus]; f.n_resources];
            for (r, row) in level_ceiling.iter_mut().enumerate() {
                for &u in f.users(r) {
                    if let Some(c) = f.cpu_of[u] {
                        row[c] = row[c].max(f.level(u));
                    }
                }
            }
        }
        Context {
            level_ceiling,
            lower: EdfLower::Jitter,
            f,
            period: sys.tasks.iter().map(|t| t.period).collect(),
            deadline: sys.tasks.iter().map(|t| t.deadline).collect(),
            jitter: sys.tasks.iter().map(|t| t.jitter).collect(),
            mix,
            scheduler: sys.platform.scheduler,
            form,
            sys,
        }
    }
    /// Tasks.
    pub fn n(&self) -> usize {
        self.f.n_tasks
    }
    /// Task `t`'s priority.
    pub fn prio(&self, t: TaskId) -> Priority {
        self.f.priority[t]
    }
    /// Task `t`'s CPU.
    pub fn cpu(&self, t: TaskId) -> Option<Cpu> {
        self.f.cpu_of[t]
    }
    /// Whether `j` has lower precedence than `i` for blocking purposes: a
    /// strictly lower priority under FP; under EDF, a relative deadline
    /// longer than `i`'s less `i`'s release jitter.
    ///
    /// Under EDF a job blocks `i`'s only from before the busy window that
    /// ends at `i`'s deadline, with its own deadline after that window
    /// (otherwise its work is in the window's demand): its relative
    /// deadline exceeds the window, at least `D_i - J_i` long. Without
    /// jitter these are the tasks of strictly lower preemption level
    /// (Baker 1991, whose levels follow relative deadlines); with it, a
    /// job released late can find a task of higher level inside a section
    /// whose deadline is the later one, and wait for it.
    pub fn is_lower(&self, j: TaskId, i: TaskId) -> bool {
        match self.scheduler {
            Scheduler::Fp => self.f.priority[j] < self.f.priority[i],
            Scheduler::Edf => match self.lower {
                EdfLower::Jitter => {
                    self.deadline[j] > self.deadline[i].saturating_sub(self.jitter[i])
                }
                EdfLower::All => true,
                EdfLower::Beyond(l) => self.deadline[j] > l,
            },
        }
    }
    /// The system as the jobs met at a resumption under EDF see it: every
    /// other task of the CPU counts as lower ([`Context::is_lower`]). A
    /// job due after a busy window can start in it whenever all the
    /// window's pending jobs are suspended, whatever its relative deadline
    /// (it arrived less than that before the window ends), and a job that
    /// then resumes, or is released, waits for its section as for a lower
    /// one's (`edf.rs`, "self-suspension"). Fixed priorities are read as
    /// they are.
    pub fn with_late_jobs(&self) -> Context<'a> {
        Context {
            lower: EdfLower::All,
            ..self.clone()
        }
    }
    /// The system as the jobs of one window of length `l` under EDF see
    /// it: the jobs that block them from before the window are due after
    /// it, so their relative deadlines exceed `l` (Baruah 2006's `B(L)`),
    /// and only those tasks count as lower ([`Context::is_lower`]).
    pub fn with_window(&self, l: Time) -> Context<'a> {
        Context {
            lower: EdfLower::Beyond(l),
            ..self.clone()
        }
    }
    /// The precedence of task `t` in the ceiling comparisons: its priority
    /// under FP, its preemption level under EDF.
    pub fn rank(&self, t: TaskId) -> u32 {
        match self.scheduler {
            Scheduler::Fp => self.f.priority[t],
            Scheduler::Edf => self.f.level(t),
        }
    }
    /// The ceiling of `r` on `cpu` in the same scale as [`Context::rank`]: the
    /// highest rank among the users of `r` on that CPU.
    pub fn local_ceiling(&self, r: ResourceId, cpu: Cpu) -> u32 {
        match self.scheduler {
            Scheduler::Fp => self.f.local_ceiling(r, cpu),
            Scheduler::Edf => self.level_ceiling[r][cpu],
        }
    }
    /// The lowest ceiling `r` has on `cpu` while at least `held` of its
    /// units are held. Under SRP a multi-unit resource's ceiling moves with
    /// the units left free (Baker 1991: the highest level among the jobs
    /// that could need more than are free), so with `units - held` free
    /// it is the highest rank among the users of `r` on `cpu` that take
    /// more than that at once. For a single-unit resource (and
    /// wherever every unit is held) it is [`Context::local_ceiling`].
    ///
    /// [`Context::local_ceiling`] is the ceiling at its highest, which is
    /// what a blocking term may charge (a section holds a job back at
    /// most as often as the highest ceiling says). Where an argument needs
    /// the ceiling at its lowest, as the level a job must pass to start
    /// above a held section does (`edf`'s jobs that run whole), it must
    /// read this.
    pub fn held_ceiling(&self, r: ResourceId, cpu: Cpu, held: u32) -> u32 {
        let free = self.sys.resources[r].units.max(1).saturating_sub(held);
        if free == 0 {
            return self.local_ceiling(r, cpu);
        }
        self.f
            .users(r)
            .iter()
            .filter(|&&u| self.f.cpu_of[u] == Some(cpu) && self.f.units(u, r) > free)
            .map(|&u| self.rank(u))
            .max()
            .unwrap_or(0)
    }
    /// Tasks on the same CPU as `i` (excluding `i`) with lower precedence.
    #[inline]
    pub fn lower_local(&self, i: TaskId) -> impl Iterator<Item = TaskId> + '_ {
        let cpu = self.cpu(i);
        let list: &[TaskId] = match cpu {
            Some(c) => self.f.on_cpu(c),
            None => &[],
        };
        // Under FP the list is sorted by priority: the lower tasks are its
        // tail, found by bisection rather than a test per task.
        let fp = self.scheduler == Scheduler::Fp;
        let from = if fp {
            let p = self.f.priority[i];
            list.partition_point(|&j| self.f.priority[j] >= p)
        } else {
            0
        };
        list[from..]
            .iter()
            .copied()
            .filter(move |&j| fp || (j != i && self.is_lower(j, i)))
    }
    /// Number of self-suspension segments of `t`.
    pub fn suspensions(&self, t: TaskId) -> u64 {
        self.f.tasks[t].suspensions as u64
    }
}
