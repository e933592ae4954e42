//! FMLP for long resources, in its FMLP+ form (Brandenburg 2011, Ch. 6):
//! FIFO queues per resource group, waiters suspend, a holder is priority
//! boosted, and the boosted jobs of a CPU run in the order in which they
//! issued their requests.
//!
//! With that order, everything that can delay a request of `J_i` was issued
//! before it, and each task has at most one request outstanding, so a
//! request is delayed by at most one section of each task of another CPU
//! that either uses the same group (queued ahead) or runs on a CPU hosting
//! a user of the group (boosted ahead of a holder): `W_{i,g} = Σ_{x ∈ X}
//! max L_x`. This *fixed* form needs no response times and is sound for
//! the issue-time boosting order this project's protocol core implements.
//!
//! The tasks of `J_i`'s own CPU are not in `X`. One above `J_i` runs its
//! sections as part of its execution, which the response-time equation
//! charges as interference already. One below `J_i` issues a request only
//! while it runs, so while `J_i` is suspended or not yet released: at
//! each of `J_i`'s arrivals it has at most one request in progress, and
//! that request delays `J_i` once, whether it is boosted ahead of `J_i` at
//! the arrival or queued ahead of a request `J_i` issues later. The local
//! term below charges exactly that, one section per arrival. (Until
//! 2026-12-02 `X` held every task of `J_i`'s CPU too, so each such
//! section was counted twice, once in each term; the job-window form and
//! SchedCAT's `fmlp_plus.cpp` count the tasks of other CPUs alone.)
//!
//! **Job window** ([`window_demand`]): the published FMLP+ analysis
//! (Brandenburg, *Scheduling and Locking in Multiprocessor Real-Time
//! Operating Systems*, PhD thesis, UNC 2011, Sec. 6.4.3, as SchedCAT's
//! `fmlp_plus.cpp` implements it), in group terms. Over the job's window
//! `R_i`, a task `x` has at most `⌈(R_i + R_x) / T_x⌉ · N_{x,g}` requests
//! for group `g`. Direct blocking: each such request of a task on CPU `c`
//! is queued ahead of at most one request of `J_i`, so at most
//! `D_c = Σ_g Σ_{x on c} min(⌈..⌉ N_{x,g}, N_{i,g})` of `J_i`'s waits meet a
//! request from `c`. Remote (direct and boost) blocking: every time `J_i`
//! waits behind a request from a remote CPU `c`, every task of `c` may have
//! one boosted section in progress ahead of it, but no more often than
//! `J_i` issues requests that `c` contends for: each task `x` of `c`
//! contributes its `min(D_c, I_c)` longest sections (any group, capped by
//! its jobs in the window). Local blocking: `J_i` resumes at most
//! `min(N_i, Σ_c D_c) + S_i + 1` times (it suspends only when a request
//! waits, or when it self-suspends; the published `N_i + 1` with this
//! project's self-suspensions), and at each a lower-priority task of its
//! CPU may have one boosted section in progress: each contributes that
//! many of its longest sections, capped by its jobs in the window. Each
//! part of the bound (remote, local) is the smaller of the two forms'
//! parts: they bound the same delays.
//!
//! Local blocking: at release and after each suspension (each request,
//! each self-suspension) every lower-priority job of the CPU may have one
//! boosted section in progress.
//!
//! Suspensions: waiting for a long resource suspends the job, and so does a
//! self-suspension; after each, every lower-priority job of the CPU may be
//! inside a boosted section, hence the `N_i + S_i + 1` resumptions. Checked
//! by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol` and the
//! searched soundness experiment.

use super::{Demand, excluding, times};
use crate::context::{BoundForm, Context};
use rtsync_model::{TaskId, Time};
use std::cell::{OnceCell, RefCell};

/// Per-system tables the job-window form reads, computed once.
pub struct Tables {
    /// Every task's outermost requests per group `(group, count,
    /// longest)`, longest first, task after task (one allocation, read in
    /// order by every look); task `x`'s are `groups[group_at[x]..group_at[x
    /// + 1]]` ([`Tables::groups`]).
    groups: Vec<(usize, u64, Time)>,
    group_at: Vec<usize>,
    pub(crate) n_groups: usize,
    /// Every group's users on a CPU `(task, CPU, requests per job)`, group
    /// after group; group `g`'s are `users[user_at[g]..user_at[g + 1]]`:
    /// the direct-blocking count of a job reads its own groups' users
    /// alone, not every task's groups.
    users: Vec<(TaskId, usize, u64)>,
    user_at: Vec<usize>,
    /// Per task, its longest outermost section (any group).
    longest_outer: Vec<Time>,
    /// Per CPU, [`Tables::longest_outer`] summed over its tasks: what a
    /// request's fixed wait leaves out of the group's sum ([`Tables::request_wait`]).
    cpu_outer: Vec<Time>,
    /// Per CPU `c`, `sums[at[c] + k]` of `(sums, at)`: the sum over the
    /// tasks of `c` of [`Tables::longest`] at one job each and `k`
    /// sections, for `k` up to the most requests a task of `c` issues per
    /// job (the last entry holds beyond). The remote term of a job window
    /// reads it for the tasks of `c` with one job in the window (most of
    /// them) instead of summing task by task; built at the first job
    /// window (the fixed forms need none).
    cpu_sums: OnceCell<(Vec<Time>, Vec<usize>)>,
    /// Per group, [`ahead`]'s sum of longest outermost sections over every
    /// task that can delay a request for the group, its requester
    /// included: a request's fixed wait is this less its own task's.
    ahead: Vec<Time>,
    /// [`window_demand`]'s working space, kept between calls.
    scratch: RefCell<Scratch>,
}

/// Per-look working space of [`window_demand`].
#[derive(Default)]
struct Scratch {
    /// Per task `i`, row `i`: per task `x`, its jobs in `J_i`'s window at
    /// the last look at `i` (allocated at the first look at `i`: a
    /// verdict that meets a miss early looks at few tasks).
    rows: Vec<Vec<Slot>>,
    /// Per task, its job-window `(remote, local)` at its row's counts.
    sums: Vec<Sums>,
    /// Under [`Follow::Running`], `takes[i * cpus + c]`: how many sections
    /// the form charges each task of CPU `c` per window of `J_i` (`k_c`
    /// on a remote CPU, 0 where `D_c = 0`; `J_i`'s arrivals on its own,
    /// for the tasks below it).
    takes: Vec<u64>,
    /// Per group `g` and CPU `c`, `hosts[g * cpus + c]`: the placed users
    /// of `g` on `c` (built at the first look, as the rest: the fixed
    /// forms, which often decide alone, need none of it).
    hosts: Vec<u64>,
    /// Per group, the fewest requests per job any placed user issues for
    /// it (`u64::MAX` for none): where every group of `J_i` asks no more
    /// than this, each user's requests cover `J_i`'s in every window, and
    /// the direct-blocking counts do not depend on the windows.
    fewest: Vec<u64>,
    /// Per CPU, the direct-blocking count `D_c`.
    direct: Vec<u64>,
    /// Per CPU, which of `J_i`'s groups (by their index in `J_i`'s list)
    /// its tasks use.
    touched: Vec<u64>,
}

/// Task `x` in the row of `J_i`.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// `x`'s jobs in the window (0 before the first look).
    jobs: u64,
    /// `jobs · T_x`: the window length past which the count grows, so a
    /// look divides only where it did.
    reach: u64,
}

/// A task's job-window parts and how they follow its row.
#[derive(Clone, Copy, Default)]
struct Sums {
    follow: Follow,
    remote: Time,
    local: Time,
}

#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
enum Follow {
    /// Not looked at yet.
    #[default]
    Unplanned,
    /// The counts that do not depend on the windows (`D_c`, `k_c`, the
    /// arrivals) were fixed at the first look: each count that moves adds
    /// what its task's charge grew by, and nothing else is recomputed.
    Running,
    /// Recomputed from the whole row when a count moves ([`job_window`]);
    /// `fresh` says the sums are those of the row's counts.
    Recount { fresh: bool },
}

impl Tables {
    /// Each task's requests per group, and each group's users.
    pub fn new(cx: &Context) -> Tables {
        let f = &cx.f;
        let n_groups = n_groups(cx);
        let mut groups: Vec<(usize, u64, Time)> = Vec::with_capacity(4 * cx.n());
        let mut group_at = Vec::with_capacity(cx.n() + 1);
        let mut user_count = vec![0usize; n_groups + 1];
        for x in 0..cx.n() {
            let start = groups.len();
            group_at.push(start);
            for rq in f.sections(x).iter().filter(|rq| rq.is_outermost()) {
                let g = f.group[rq.resource];
                match groups[start..].iter_mut().find(|e| e.0 == g) {
                    Some(e) => {
                        e.1 += 1;
                        e.2 = e.2.max(rq.length);
                    }
                    None => groups.push((g, 1, rq.length)),
                }
            }
            groups[start..].sort_by_key(|e| std::cmp::Reverse(e.2));
            if cx.cpu(x).is_some() {
                for e in &groups[start..] {
                    user_count[e.0 + 1] += 1;
                }
            }
        }
        group_at.push(groups.len());
        // Counting sort of the placed users by group.
        for g in 0..n_groups {
            user_count[g + 1] += user_count[g];
        }
        let user_at = user_count.clone();
        let mut users = vec![(0, 0, 0); user_at[n_groups]];
        let mut next = user_count;
        for x in 0..cx.n() {
            let Some(c) = cx.cpu(x) else { continue };
            for &(g, m, _) in &groups[group_at[x]..group_at[x + 1]] {
                users[next[g]] = (x, c, m);
                next[g] += 1;
            }
        }
        let longest_outer: Vec<Time> = (0..cx.n())
            .map(|x| {
                groups[group_at[x]..group_at[x + 1]]
                    .first()
                    .map_or(Time::ZERO, |e| e.2)
            })
            .collect();
        let ahead = ahead_sums(cx, n_groups, |x| longest_outer[x]);
        let cpu_outer = per_cpu(cx, &longest_outer);
        Tables {
            groups,
            group_at,
            n_groups,
            users,
            user_at,
            longest_outer,
            cpu_outer,
            cpu_sums: OnceCell::new(),
            ahead,
            scratch: RefCell::new(Scratch::default()),
        }
    }

    /// Task `x`'s outermost requests per group `(group, count, longest)`,
    /// longest first.
    pub(crate) fn groups(&self, x: TaskId) -> &[(usize, u64, Time)] {
        &self.groups[self.group_at[x]..self.group_at[x + 1]]
    }

    /// The placed users of group `g`: `(task, CPU, requests per job)`.
    fn users(&self, g: usize) -> &[(TaskId, usize, u64)] {
        &self.users[self.user_at[g]..self.user_at[g + 1]]
    }

    /// [`request_wait`] from the per-group sums: `i` must use `g`. Every
    /// task of `i`'s CPU is in the group's sum (the CPU hosts a user,
    /// `i`), so leaving them out is subtracting the CPU's sum.
    fn request_wait(&self, cx: &Context, i: TaskId, g: usize) -> Time {
        match cx.cpu(i) {
            Some(c) => excluding(self.ahead[g], self.cpu_outer[c]),
            None => excluding(self.ahead[g], self.longest_outer[i]),
        }
    }

    /// Drops what the job windows kept between looks: each row's job
    /// counts, and the running sums built on them, assume estimates that
    /// only rise, so a refinement after the estimates started over
    /// ([`super::DemandTable::unrefine`]) must start from nothing too.
    pub(crate) fn forget(&self) {
        *self.scratch.borrow_mut() = Scratch::default();
    }

    /// `Σ_{x on c}` [`Tables::longest`]`(x, 1, k)`, from the table.
    fn cpu_sum(&self, cx: &Context, c: usize, k: u64) -> Time {
        let (sums, at) = self.cpu_sums.get_or_init(|| self.build_cpu_sums(cx));
        let (a, b) = (at[c], at[c + 1]);
        sums[a + k.min((b - a - 1) as u64) as usize]
    }

    /// The table of [`Tables::cpu_sum`].
    fn build_cpu_sums(&self, cx: &Context) -> (Vec<Time>, Vec<usize>) {
        let f = &cx.f;
        let (mut sums, mut at) = (Vec::new(), Vec::with_capacity(f.cpus + 1));
        let per_job = |x: TaskId| -> u64 { self.groups(x).iter().map(|e| e.1).sum() };
        for c in 0..f.cpus {
            let start = sums.len();
            at.push(start);
            let most = f.on_cpu(c).iter().map(|&x| per_job(x)).max().unwrap_or(0) as usize;
            sums.resize(start + most + 1, Time::ZERO);
            for &x in f.on_cpu(c) {
                // `x`'s sections longest first (each group's requests at
                // its longest length), summed as they come; past its last
                // request the sum stays.
                let (mut k, mut sum) = (0, Time::ZERO);
                for &(_, count, len) in self.groups(x) {
                    for _ in 0..count {
                        k += 1;
                        sum = sum.saturating_add(len);
                        sums[start + k] = sums[start + k].saturating_add(sum);
                    }
                }
                for e in &mut sums[start + k + 1..=start + most] {
                    *e = e.saturating_add(sum);
                }
            }
        }
        at.push(sums.len());
        (sums, at)
    }

    /// [`Tables::longest`]`(x, to, k)` less `longest(x, from, k)`, for
    /// `to ≥ from`, in one walk of `x`'s groups (what a task's charge
    /// grows by when its jobs in a window do). Nothing where `from` jobs
    /// of `x`'s longest kind already give the `k`.
    fn grown(&self, x: TaskId, from: u64, to: u64, k: u64) -> Time {
        let groups = self.groups(x);
        if groups.first().is_none_or(|e| e.1.saturating_mul(from) >= k) {
            return Time::ZERO;
        }
        // `to` takes sections at least as fast as `from`, so its `left`
        // is never above `from`'s.
        let (mut left_to, mut left_from) = (k, k);
        let (mut sum_to, mut sum_from) = (Time::ZERO, Time::ZERO);
        for &(_, count, len) in groups {
            if left_from == 0 {
                break;
            }
            let a = count.saturating_mul(to).min(left_to);
            let b = count.saturating_mul(from).min(left_from);
            sum_to = sum_to.saturating_add(times(len, a));
            sum_from = sum_from.saturating_add(times(len, b));
            left_to -= a;
            left_from -= b;
        }
        excluding(sum_to, sum_from)
    }

    /// The sum of `x`'s `k` longest sections, each kind at most `count ·
    /// jobs` times.
    pub(crate) fn longest(&self, x: TaskId, jobs: u64, k: u64) -> Time {
        let (mut left, mut sum) = (k, Time::ZERO);
        for &(_, count, len) in self.groups(x) {
            if left == 0 {
                break;
            }
            let n = count.saturating_mul(jobs).min(left);
            sum = sum.saturating_add(times(len, n));
            left -= n;
        }
        sum
    }
}

/// The longest a request of task `i` for group `g` waits in its FIFO
/// queue, less what `i`'s response-time equation charges already: the
/// tasks that can be queued or boosted ahead of it but those of `i`'s own
/// CPU (the module's doc).
pub fn request_wait(cx: &Context, i: TaskId, g: usize) -> Time {
    let home = |x: TaskId| cx.cpu(i).is_some() && cx.cpu(x) == cx.cpu(i);
    ahead(cx, i, g, |x| {
        if home(x) {
            Time::ZERO
        } else {
            cx.f.longest_outer_cs(x)
        }
    })
}

/// `Σ cost(x)` over the tasks `x ≠ i` that can delay a request of `i`
/// for group `g`: users of the group (queued ahead), and tasks of a CPU
/// hosting a user or `i` itself (boosted ahead of a holder). The mixed
/// FMLP bound ([`super::fmlp`]) charges each its own cost.
pub(crate) fn ahead(cx: &Context, i: TaskId, g: usize, cost: impl Fn(TaskId) -> Time) -> Time {
    let f = &cx.f;
    let mut cpus = vec![false; f.cpus];
    if let Some(c) = cx.cpu(i) {
        cpus[c] = true;
    }
    let in_group = |x: TaskId| f.sections(x).iter().any(|rq| f.group[rq.resource] == g);
    for x in 0..cx.n() {
        if in_group(x)
            && let Some(c) = cx.cpu(x)
        {
            cpus[c] = true;
        }
    }
    let mut w = Time::ZERO;
    for x in (0..cx.n()).filter(|&x| x != i) {
        if in_group(x) || cx.cpu(x).is_some_and(|c| cpus[c]) {
            w = w.saturating_add(cost(x));
        }
    }
    w
}

/// Per CPU, `cost` summed over its placed tasks: what a request's wait
/// leaves out of its group's [`ahead_sums`] for the tasks of the
/// requester's own CPU (every one of them is in the sum, its CPU hosting
/// a user, the requester). The mixed FMLP bound ([`super::fmlp`]) reads it
/// too.
pub(crate) fn per_cpu(cx: &Context, cost: &[Time]) -> Vec<Time> {
    let mut sums = vec![Time::ZERO; cx.f.cpus];
    for (x, &c) in cost.iter().enumerate() {
        if let Some(k) = cx.cpu(x) {
            sums[k] = sums[k].saturating_add(c);
        }
    }
    sums
}

/// The number of resource groups.
pub(crate) fn n_groups(cx: &Context) -> usize {
    cx.f.group.iter().map(|&g| g + 1).max().unwrap_or(0)
}

/// Per group `g`, [`ahead`]`(cx, i, g, cost)` plus `cost(i)` for any user
/// `i` of `g` (the set [`ahead`] sums over is the same for every user of
/// the group but for the user itself): one pass over the tasks instead of
/// one per request.
pub(crate) fn ahead_sums(
    cx: &Context,
    n_groups: usize,
    cost: impl Fn(TaskId) -> Time,
) -> Vec<Time> {
    let f = &cx.f;
    let (n, cpus) = (cx.n(), f.cpus);
    // uses[x * n_groups + g]: x has a section in g; hosts[g * cpus + c]:
    // CPU c hosts a user of g.
    let mut uses = vec![false; n * n_groups];
    let mut hosts = vec![false; n_groups * cpus];
    for x in 0..n {
        for rq in f.sections(x) {
            let g = f.group[rq.resource];
            uses[x * n_groups + g] = true;
            if let Some(c) = cx.cpu(x) {
                hosts[g * cpus + c] = true;
            }
        }
    }
    (0..n_groups)
        .map(|g| {
            (0..n)
                .filter(|&x| {
                    uses[x * n_groups + g] || cx.cpu(x).is_some_and(|c| hosts[g * cpus + c])
                })
                .fold(Time::ZERO, |a, x| a.saturating_add(cost(x)))
        })
        .collect()
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound), each request's wait [`request_wait`] read from the
/// tables.
pub fn demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    let f = &cx.f;
    let mut remote = Time::ZERO;
    let mut n_req = 0u64;
    for rq in f.sections(i).iter().filter(|rq| rq.is_outermost()) {
        n_req += 1;
        remote = remote.saturating_add(tb.request_wait(cx, i, f.group[rq.resource]));
    }
    let resumptions = n_req + cx.suspensions(i) + 1;
    let local = cx.lower_local(i).fold(Time::ZERO, |a, j| {
        a.saturating_add(times(tb.longest_outer[j], resumptions))
    });
    Demand {
        exec: f.tasks[i].wcet,
        remote,
        local,
        spin: Time::ZERO,
        joint: None,
    }
}

/// Task `i`'s demand under the job-window form (see the module's doc) at
/// the response-time estimates `resp`, or `fixed` where that is smaller.
pub fn window_demand(cx: &Context, tb: &Tables, i: TaskId, fixed: Demand, resp: &[Time]) -> Demand {
    let r_i = resp[i];
    let n = cx.n();
    let mut scratch = tb.scratch.borrow_mut();
    let Scratch {
        rows,
        sums,
        takes,
        hosts,
        fewest,
        direct,
        touched,
    } = &mut *scratch;
    let cpus = cx.f.cpus;
    if rows.is_empty() {
        rows.resize(n, Vec::new());
        sums.resize(n, Sums::default());
        takes.resize(n * cpus, 0);
        hosts.resize(tb.n_groups * cpus, 0);
        fewest.resize(tb.n_groups, u64::MAX);
        for g in 0..tb.n_groups {
            for &(_, c, m) in tb.users(g) {
                hosts[g * cpus + c] += 1;
                fewest[g] = fewest[g].min(m);
            }
        }
    }
    if rows[i].is_empty() {
        rows[i].resize(n, Slot::default());
        sums[i] = plan(
            cx,
            tb,
            hosts,
            fewest,
            i,
            r_i,
            &mut takes[i * cpus..(i + 1) * cpus],
        );
    }
    let (row, sum, takes) = (&mut rows[i][..], &mut sums[i], &takes[i * cpus..]);
    let running = sum.follow == Follow::Running;
    let own = cx.cpu(i);
    let mut moved = false;
    for (x, slot) in row.iter_mut().enumerate() {
        // The estimates only rise between looks, so the count only grows:
        // it needs a division only once the window passes its reach.
        let w = r_i.saturating_add(resp[x]).ns();
        if w <= slot.reach {
            continue;
        }
        let t = cx.period[x].ns().max(1);
        let j = if w <= t {
            1
        } else if w <= 2 * t {
            2
        } else {
            w.div_ceil(t)
        };
        // The plan charged one job each (every count is at least one
        // where `r_i > 0`): add what the charge grew by.
        let from = slot.jobs.max(1);
        if running
            && j > from
            && let Some(c) = cx.cpu(x)
        {
            let local = Some(c) == own;
            if !local || cx.is_lower(x, i) {
                let grown = tb.grown(x, from, j, takes[c]);
                let part = if local {
                    &mut sum.local
                } else {
                    &mut sum.remote
                };
                *part = part.saturating_add(grown);
            }
        }
        slot.jobs = j;
        slot.reach = j.saturating_mul(t);
        moved = true;
    }
    if running && (sum.remote == Time::MAX || sum.local == Time::MAX) {
        // A saturated running sum no longer tracks the row exactly:
        // recount it from here on, as the general form does.
        sum.follow = Follow::Recount { fresh: false };
    }
    if let Follow::Recount { fresh } = sum.follow
        && (moved || !fresh)
    {
        (sum.remote, sum.local) = job_window(cx, tb, i, row, direct, touched);
        sum.follow = Follow::Recount { fresh: true };
    }
    // Each part the smaller of its two forms: the fixed form's parts bound
    // the same delays as the job window's (the tasks of other CPUs in
    // `remote`, the lower tasks of the job's own CPU per arrival in
    // `local`; the module's doc), so each is a bound on its own, and the
    // smaller of two parts that only rise with the estimates only rises.
    // (Until 2026-12-02 the form with the smaller total was kept whole:
    // its parts could fall as the estimates rose, when the job window's
    // remote part passed the fixed one's first.)
    let classic = Demand {
        remote: sum.remote.min(fixed.remote),
        local: sum.local.min(fixed.local),
        ..fixed
    };
    if cx.form == BoundForm::Lp {
        // Each part is a sound bound on its own delay in every form.
        let (local, remote) = super::lp::fmlp_l::bound(cx, tb, i, resp);
        Demand {
            local: classic.local.min(local),
            remote: classic.remote.min(remote),
            ..classic
        }
    } else {
        classic
    }
}

/// At the first look at `i` (`hosts` and `fewest` as [`Scratch`] keeps
/// them): where the direct-blocking counts `D_c` do
/// not depend on the windows (every user of each of `J_i`'s groups issues
/// at least as many requests per job as `J_i`, so each covers `J_i`'s
/// requests in any window of at least one job), the per-CPU `k_c` and the
/// arrivals are fixed too, and the form is a sum over tasks of charges
/// that each read one count: sets in `takes` (per CPU) how many sections
/// each task is charged and returns the sums at one job each
/// ([`Follow::Running`]). Otherwise
/// (or with `r_i = 0`, where a window can hold no job, or more groups
/// than [`job_window`]'s mask) the sums are recounted from the row at
/// each move ([`Follow::Recount`]). Both give [`job_window`]'s answer
/// (the test `the_running_sums_are_the_recounted_ones`). Kept out of
/// line: it runs once per task, and inlined it crowds the look's loop.
#[inline(never)]
fn plan(
    cx: &Context,
    tb: &Tables,
    hosts: &[u64],
    fewest: &[u64],
    i: TaskId,
    r_i: Time,
    takes: &mut [u64],
) -> Sums {
    let recount = Sums {
        follow: Follow::Recount { fresh: false },
        ..Sums::default()
    };
    let mine = tb.groups(i);
    if r_i.is_zero() || mine.len() > 64 || mine.iter().any(|&(g, n, _)| n > fewest[g]) {
        return recount;
    }
    let f = &cx.f;
    let own = cx.cpu(i);
    let n_i: u64 = mine.iter().map(|e| e.1).sum();
    let (mut blocked, mut remote) = (0u64, Time::ZERO);
    for (c, take) in takes.iter_mut().enumerate() {
        // D_c: each other user of one of `J_i`'s groups on `c` meets
        // each of `J_i`'s requests for it; I_c: those requests.
        let (mut d, mut contended) = (0u64, 0u64);
        for &(g, n, _) in mine {
            let others = hosts[g * f.cpus + c] - u64::from(own == Some(c));
            if others > 0 {
                d = d.saturating_add(n.saturating_mul(others));
                contended += n;
            }
        }
        blocked = blocked.saturating_add(d);
        *take = 0;
        if Some(c) != own && d > 0 {
            let k = d.min(contended);
            remote = remote.saturating_add(tb.cpu_sum(cx, c, k));
            *take = k;
        }
    }
    let arrivals = n_i.min(blocked).saturating_add(cx.suspensions(i)) + 1;
    if let Some(c) = own {
        takes[c] = arrivals;
    }
    let mut local = Time::ZERO;
    for x in cx.lower_local(i) {
        local = local.saturating_add(tb.longest(x, 1, arrivals));
    }
    if remote == Time::MAX || local == Time::MAX {
        return recount;
    }
    Sums {
        follow: Follow::Running,
        remote,
        local,
    }
}

/// The job-window `(remote, local)` of `i` from every task's jobs in its
/// window (`row`; the module's doc), in the given working space.
fn job_window(
    cx: &Context,
    tb: &Tables,
    i: TaskId,
    row: &[Slot],
    direct: &mut Vec<u64>,
    touched: &mut Vec<u64>,
) -> (Time, Time) {
    let f = &cx.f;
    let jx = |x: TaskId| row[x].jobs;
    let mine = tb.groups(i);
    let n_i: u64 = mine.iter().map(|e| e.1).sum();
    direct.clear();
    direct.resize(f.cpus, 0);
    touched.clear();
    touched.resize(f.cpus, 0);
    // Per CPU: the direct-blocking count D_c, and which of `J_i`'s groups
    // its tasks use (for I_c), read from the users of `J_i`'s groups.
    for (k, &(g, n, _)) in mine.iter().enumerate() {
        for &(x, c, m) in tb.users(g) {
            if x != i {
                direct[c] = direct[c].saturating_add(m.saturating_mul(jx(x)).min(n));
                touched[c] |= 1u64 << k.min(63);
            }
        }
    }
    let contended = |c: usize| -> u64 {
        if mine.len() > 64 {
            // More groups than the mask holds: all of them, an upper bound.
            return n_i;
        }
        mine.iter()
            .enumerate()
            .filter(|(k, _)| touched[c] >> k & 1 == 1)
            .map(|(_, e)| e.1)
            .sum()
    };
    let own = cx.cpu(i);
    let mut remote = Time::ZERO;
    for c in (0..f.cpus).filter(|&c| Some(c) != own && direct[c] > 0) {
        let k = direct[c].min(contended(c));
        // The CPU's tasks at one job each from the table, corrected for
        // the few whose jobs in the window are not one.
        let (mut one, mut some) = (tb.cpu_sum(cx, c, k), Time::ZERO);
        for &x in f.on_cpu(c).iter().filter(|&&x| jx(x) != 1) {
            one = excluding(one, tb.longest(x, 1, k));
            some = some.saturating_add(tb.longest(x, jx(x), k));
        }
        remote = remote.saturating_add(one).saturating_add(some);
    }
    let blocked = direct.iter().fold(0u64, |a, &d| a.saturating_add(d));
    let arrivals = n_i.min(blocked).saturating_add(cx.suspensions(i)) + 1;
    let mut local = Time::ZERO;
    for x in cx.lower_local(i) {
        local = local.saturating_add(tb.longest(x, jx(x), arrivals));
    }
    (remote, local)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::generate::{GenConfig, generate, partitioned};
    use crate::partition::Heuristic;
    use proptest::prelude::*;
    use rtsync_model::Protocol;

    /// The systems the tabled-wait tests draw (here and in the mixed
    /// FMLP's, [`super::super::fmlp`]): three tasks a CPU and one more,
    /// five resources and a local one, up to three requests a job, nested
    /// with probability `nest`.
    pub(in crate::blocking) fn waits_system(
        seed: u64,
        cpus: usize,
        nest: f64,
    ) -> rtsync_model::System {
        let c = GenConfig {
            cpus,
            tasks: 3 * cpus + 1,
            utilization: 0.5 * cpus as f64,
            resources: 5,
            protocol: Protocol::FmlpL,
            requests_max: 3,
            nest_prob: nest,
            local_resources: 1,
            partition: Some(Heuristic::WorstFit),
            ..GenConfig::default()
        };
        generate(&c, seed, 0)
    }

    /// The fixed form by hand. CPU 0 runs `h` (high), `i` and `y` (low),
    /// CPU 1 runs `r`; all four use the one long resource, holding it 2,
    /// 1, 4 and 3 ms. A request of `i` waits for `r`'s section alone:
    /// `h`'s runs as interference above `i`, and `y`'s is charged at each
    /// of `i`'s two arrivals (release, resumption after the request),
    /// 8 ms of local blocking. Until 2026-12-02 the wait held `h`'s and
    /// `y`'s sections too, 9 ms, and `y`'s twice over. `r`, alone on its
    /// CPU, waits for every section of CPU 0: 7 ms.
    #[test]
    fn the_fixed_wait_leaves_the_job_s_own_cpu_to_the_other_terms() {
        let (sys, _) = rtsync_model::load_str(
            r#"
[platform]
cpus = 2
protocol = "fmlp-l"
[[resource]]
name = "L"
[[task]]
name = "h"
period = "100ms"
priority = 3
cpu = 0
body = [ { lock = "L", hold = "2ms" } ]
[[task]]
name = "i"
period = "100ms"
priority = 2
cpu = 0
body = [ { lock = "L", hold = "1ms" } ]
[[task]]
name = "y"
period = "100ms"
priority = 1
cpu = 0
body = [ { lock = "L", hold = "4ms" } ]
[[task]]
name = "r"
period = "100ms"
priority = 2
cpu = 1
body = [ { lock = "L", hold = "3ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"));
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let ms = Time::from_ms;
        let d = |t: TaskId| demand(&cx, &tb, t);
        assert_eq!((d(1).remote, d(1).local), (ms(3), ms(8)), "i");
        assert_eq!((d(0).remote, d(0).local), (ms(3), ms(10)), "h");
        assert_eq!((d(2).remote, d(2).local), (ms(3), ms(0)), "y");
        assert_eq!((d(3).remote, d(3).local), (ms(7), ms(0)), "r");
        for t in 0..4 {
            let g = cx.f.group[0];
            assert_eq!(
                tb.request_wait(&cx, t, g),
                request_wait(&cx, t, g),
                "task {t}"
            );
        }
    }

    /// The systems the job-window rows' tests draw: four FMLP+ tasks a
    /// CPU, five resources and a local one, `reqs` requests a job at most,
    /// nested with probability `nest`, self-suspending with `suspend`.
    fn rows_system(
        seed: u64,
        cpus: usize,
        reqs: u32,
        nest: f64,
        suspend: f64,
    ) -> rtsync_model::System {
        partitioned(Protocol::FmlpL, seed, cpus, 4, 0.6, 5, |c| {
            c.requests_max = reqs;
            c.nest_prob = nest;
            c.local_resources = 1;
            c.suspend_prob = suspend;
        })
    }

    proptest! {
        /// The per-CPU table answers the sum task by task at one job each,
        /// for every count of sections up to past the most any task has,
        /// with several requests per group and nesting.
        #[test]
        fn the_cpu_sums_are_the_sums_task_by_task(
            seed in 0u64..10_000,
            cpus in 1usize..5,
            nest in 0.0f64..0.6,
        ) {
            let sys = partitioned(Protocol::FmlpL, seed, cpus, 3, 0.5, 5, |c| {
                c.requests_max = 4;
                c.nest_prob = nest;
            });
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            for c in 0..cx.f.cpus {
                for k in 0..12u64 {
                    let want = cx.f.on_cpu(c).iter().fold(Time::ZERO, |a, &x| a.saturating_add(tb.longest(x, 1, k)));
                    prop_assert_eq!(tb.cpu_sum(&cx, c, k), want, "CPU {}, {} sections", c, k);
                }
            }
        }

        /// Where the plan follows the counts ([`Follow::Running`]), its
        /// sums after each look are what [`job_window`] counts from the
        /// whole row, each task's jobs recounted from scratch with
        /// [`super::jobs`]: over looks at rising estimates (each task's
        /// rising at its own rate, so counts move unevenly), with one or
        /// several requests per group (several may leave a task to the
        /// recount), nesting (groups spanning resources), local resources
        /// (local blocking) and self-suspensions (more arrivals). With
        /// one request per resource and no nesting every task follows the
        /// counts, so the running sums are what is checked there.
        #[test]
        fn the_running_sums_are_the_recounted_ones(
            seed in 0u64..10_000,
            cpus in 1usize..5,
            reqs in 1u32..4,
            nest in prop_oneof![Just(0.0f64), 0.0f64..0.5],
            suspend in 0.0f64..0.4,
            steps in proptest::collection::vec(1u64..40_000_000, 1..5),
        ) {
            let sys = rows_system(seed, cpus, reqs, nest, suspend);
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            let n = cx.n();
            let mut resp: Vec<Time> = (0..n).map(|x| cx.f.tasks[x].wcet).collect();
            for step in steps {
                for (x, r) in resp.iter_mut().enumerate() {
                    *r = r.saturating_add(Time::from_ns(step * (1 + x as u64 % 3) / 3));
                }
                for i in 0..n {
                    window_demand(&cx, &tb, i, demand(&cx, &tb, i), &resp);
                    let row: Vec<Slot> = (0..n)
                        .map(|x| Slot {
                            jobs: super::super::jobs(resp[i], resp[x], cx.period[x]),
                            reach: 0,
                        })
                        .collect();
                    let want = job_window(&cx, &tb, i, &row, &mut Vec::new(), &mut Vec::new());
                    let sums = tb.scratch.borrow().sums[i];
                    if reqs == 1 && nest == 0.0 {
                        prop_assert_eq!(sums.follow, Follow::Running, "task {}", i);
                    }
                    prop_assert_eq!((sums.remote, sums.local), want, "task {} at {:?}", i, resp);
                }
            }
        }

        /// After [`super::super::DemandTable::unrefine`], a refinement at
        /// estimates below the earlier ones is the one a fresh table
        /// gives: the rows' job counts assume rising estimates, and are
        /// dropped with the refinements ([`Tables::forget`]).
        #[test]
        fn a_refinement_after_unrefine_starts_afresh(
            seed in 0u64..10_000,
            cpus in 1usize..5,
            reqs in 1u32..4,
            nest in prop_oneof![Just(0.0f64), 0.0f64..0.5],
        ) {
            let sys = rows_system(seed, cpus, reqs, nest, 0.0);
            let cx = Context::new(&sys);
            let n = cx.n();
            // Windows of several jobs each, then of one.
            let high: Vec<Time> = (0..n).map(|x| times(cx.period[x], 3)).collect();
            let low: Vec<Time> = (0..n).map(|x| cx.f.tasks[x].wcet).collect();
            let used = super::super::DemandTable::new(&cx);
            for i in 0..n {
                used.refine(i, &high);
            }
            used.unrefine();
            let fresh = super::super::DemandTable::new(&cx);
            for i in 0..n {
                prop_assert_eq!(used.refine(i, &low), fresh.refine(i, &low), "task {}", i);
            }
        }

        /// Each request's fixed wait read from the per-group sums is the
        /// sum over the tasks ahead of it, counted task by task, with
        /// nesting (groups spanning resources), local resources and tasks
        /// left unplaced.
        #[test]
        fn the_tabled_wait_is_the_sum_over_the_tasks_ahead(
            seed in 0u64..10_000,
            cpus in 1usize..5,
            nest in 0.0f64..0.6,
            unplaced in any::<bool>(),
        ) {
            let mut sys = waits_system(seed, cpus, nest);
            if unplaced {
                sys.tasks[0].cpu = None;
            }
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            for i in 0..cx.n() {
                for rq in cx.f.sections(i) {
                    let g = cx.f.group[rq.resource];
                    prop_assert_eq!(tb.request_wait(&cx, i, g), request_wait(&cx, i, g), "task {}, group {}", i, g);
                }
            }
        }
    }
}
