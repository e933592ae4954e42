//! Component threads (paper 001): which thread of which interface serves
//! each request, followed as jobs move through their lowered bodies.
//!
//! The kernel schedules the lowered system (module documentation of
//! `rtsync_model::component`): a request is the requester's own thread of
//! control continuing in the component, at the priority its interface
//! gives it. What a component system *looks like* is different: a request
//! is a message to a thread of the interface's pool, which serves it and
//! replies. This module keeps that picture beside the schedule: when a job
//! enters the segments of a request ([`rtsync_model::component::Request::segments`])
//! the request is sent and a free thread of the pool takes it (the lowest
//! numbered); when the job leaves them, the thread replies and is free
//! again. A fixed interface has one thread, which takes a request when it
//! is granted: until then the request waits in the notification manager's
//! queue (the section's wait queue: request priority, then arrival).
//!
//! The picture is also a check. Paper 001 sizes each pool by analysis
//! (Fig. 3): the analyzer's [`rtsync_model::component::Components::pool`].
//! A request finding every thread of its pool busy means the size was
//! wrong: the kernel reports it as a broken invariant, so the soundness
//! search tries to break the pool sizes as it tries the bounds.

use crate::program::Op;
use crate::trace::{Event, Recording, Serve};
use rtsync_model::component::{Components, Request};
use rtsync_model::{System, Time};

/// One request of a task's request tree, flattened.
struct Req {
    interface: usize,
    method: usize,
    /// The request it is made from, if any (else the task's body).
    parent: Option<usize>,
}

/// A request being served: which, by which thread, since when.
#[derive(Clone, Copy)]
struct Open {
    req: usize,
    /// The thread serving it; `None` while a fixed interface's request
    /// waits in the queue.
    thread: Option<u32>,
    start: Time,
}

/// The component threads of a simulation.
pub(crate) struct Serving<'a> {
    sys: &'a System,
    c: &'a Components,
    /// Per task: its requests.
    reqs: Vec<Vec<Req>>,
    /// Per task, per operation of its program: the innermost request the
    /// operation serves.
    innermost: Vec<Vec<Option<usize>>>,
    /// Per task: the requests its job is inside, outermost first.
    open: Vec<Vec<Open>>,
    /// Per interface: which of its threads serve a request now.
    busy: Vec<Vec<bool>>,
}

impl<'a> Serving<'a> {
    /// The component threads of `sys`, whose tasks run `progs` (numbered
    /// by `segs`: each operation's preorder segment); `None` without
    /// components.
    pub(crate) fn new(sys: &'a System, progs: &[Vec<Op>], segs: &[Vec<usize>]) -> Option<Self> {
        let c = sys.components.as_deref()?;
        let mut reqs = Vec::with_capacity(sys.tasks.len());
        let mut innermost = Vec::with_capacity(sys.tasks.len());
        for (t, task) in sys.tasks.iter().enumerate() {
            let n = rtsync_model::preorder(&task.body).len();
            let mut by_seg: Vec<Option<usize>> = vec![None; n];
            let mut flat = Vec::new();
            fn walk(
                rs: &[Request],
                parent: Option<usize>,
                flat: &mut Vec<Req>,
                by_seg: &mut [Option<usize>],
            ) {
                for r in rs {
                    let me = flat.len();
                    flat.push(Req {
                        interface: r.interface,
                        method: r.method,
                        parent,
                    });
                    // Inner requests are visited after their parent: the
                    // innermost one is written last.
                    for s in r.segments.clone() {
                        if let Some(x) = by_seg.get_mut(s) {
                            *x = Some(me);
                        }
                    }
                    walk(&r.inner, Some(me), flat, by_seg);
                }
            }
            if let Some(rs) = c.requests.get(t) {
                walk(rs, None, &mut flat, &mut by_seg);
            }
            innermost.push(
                (0..progs[t].len())
                    .map(|op| {
                        segs[t]
                            .get(op)
                            .and_then(|&s| by_seg.get(s).copied().flatten())
                    })
                    .collect(),
            );
            reqs.push(flat);
        }
        let lanes = |i: usize| c.pool.get(i).copied().unwrap_or(1).max(1) as usize;
        Some(Serving {
            sys,
            c,
            reqs,
            innermost,
            open: vec![Vec::new(); sys.tasks.len()],
            busy: (0..c.interfaces.len())
                .map(|i| vec![false; lanes(i)])
                .collect(),
        })
    }

    /// The requests the job of `t` is inside at operation `pc` (none when
    /// it has no job), outermost first.
    fn chain(&self, t: usize, pc: Option<usize>) -> Vec<usize> {
        let mut out = Vec::new();
        let mut r = pc.and_then(|pc| self.innermost[t].get(pc).copied().flatten());
        while let Some(x) = r {
            out.push(x);
            r = self.reqs[t][x].parent;
        }
        out.reverse();
        out
    }

    /// The job of `t` is now at operation `pc` (`None`: it has none).
    /// Sends and replies the requests it entered and left, recording them
    /// in `rec`; an error when a pool has no free thread for a request.
    pub(crate) fn moved(
        &mut self,
        t: usize,
        pc: Option<usize>,
        now: Time,
        mut rec: Option<&mut Recording>,
    ) -> Result<(), String> {
        let want = self.chain(t, pc);
        let queued = |s: &Self, o: &Open| o.thread.is_none() && !s.at_start(t, o.req, pc);
        let same = self.open[t].len() == want.len()
            && self.open[t].iter().zip(&want).all(|(o, &w)| o.req == w);
        if same && !self.open[t].iter().any(|o| queued(self, o)) {
            return Ok(());
        }
        // Left: every open request from the first that differs.
        let keep = self.open[t]
            .iter()
            .zip(&want)
            .take_while(|(o, w)| o.req == **w)
            .count();
        while self.open[t].len() > keep {
            let o = self.open[t].pop().expect("len > keep");
            self.reply(t, o, now, rec.as_deref_mut());
        }
        let mut fault = Ok(());
        for &r in &want[keep..] {
            let i = self.reqs[t][r].interface;
            let thread = if self.c.interfaces[i].kind.single_thread() {
                None
            } else {
                let (k, fits) = self.take(i);
                if !fits {
                    fault = Err(format!(
                        "the pool of `{}` has {} thread(s), and a request of {} found them all busy",
                        self.c.interfaces[i].name, self.c.pool[i], self.sys.tasks[t].name
                    ));
                }
                Some(k)
            };
            let o = Open {
                req: r,
                thread,
                start: now,
            };
            self.open[t].push(o);
            self.send(t, o, now, rec.as_deref_mut());
        }
        // A fixed interface's thread takes a request once its section is
        // granted: the job has moved past the section's lock.
        for k in 0..self.open[t].len() {
            let o = self.open[t][k];
            if !queued(self, &o) {
                continue;
            }
            let o = Open {
                thread: Some(0),
                start: now,
                ..o
            };
            self.open[t][k] = o;
            if let Some(rec) = rec.as_deref_mut() {
                rec.events.push(Event::Serve {
                    t: now,
                    task: self.sys.tasks[t].name.clone(),
                    request: self.label(t, o.req),
                    thread: self.lane(t, o),
                });
            }
        }
        fault
    }

    /// Whether the job of `t`, at operation `pc`, is at the start of
    /// request `r`'s section (its lock, not yet granted).
    fn at_start(&self, t: usize, r: usize, pc: Option<usize>) -> bool {
        let Some(pc) = pc else { return false };
        let of = |pc: usize| self.innermost[t].get(pc).copied().flatten();
        of(pc) == Some(r) && (pc == 0 || of(pc - 1) != Some(r))
    }

    /// The lowest free thread of `i`'s pool, taken, and whether it is in
    /// the pool (when every thread is busy the picture goes on with one
    /// more).
    fn take(&mut self, i: usize) -> (u32, bool) {
        let busy = &mut self.busy[i];
        let k = busy.iter().position(|b| !b).unwrap_or(busy.len());
        if k == busy.len() {
            busy.push(false);
        }
        busy[k] = true;
        (k as u32, (k as u32) < self.c.pool[i].max(1))
    }

    /// `interface.method` of request `r` of `t` (built only for the
    /// recording: a search simulates without one).
    fn label(&self, t: usize, r: usize) -> String {
        let q = &self.reqs[t][r];
        self.c.method_label(q.interface, q.method)
    }

    /// The lane of a served request: `C.i` for a single thread, `C.i#k`
    /// for the `k`-th thread of a pool.
    fn lane(&self, t: usize, o: Open) -> String {
        let f = &self.c.interfaces[self.reqs[t][o.req].interface];
        match o.thread {
            Some(k) if !f.kind.single_thread() => format!("{}#{k}", f.name),
            _ => f.name.clone(),
        }
    }

    /// Who sent request `o`: the task, or the thread serving its parent.
    fn sender(&self, t: usize, o: Open) -> String {
        let parent = self.reqs[t][o.req].parent;
        match parent.and_then(|p| self.open[t].iter().find(|x| x.req == p)) {
            Some(&p) => self.lane(t, p),
            None => self.sys.tasks[t].name.clone(),
        }
    }

    fn send(&self, t: usize, o: Open, now: Time, rec: Option<&mut Recording>) {
        if let Some(rec) = rec {
            rec.events.push(Event::Call {
                t: now,
                task: self.sys.tasks[t].name.clone(),
                request: self.label(t, o.req),
                from: self.sender(t, o),
                thread: o.thread.map(|_| self.lane(t, o)),
            });
        }
    }

    fn reply(&mut self, t: usize, o: Open, now: Time, rec: Option<&mut Recording>) {
        let i = self.reqs[t][o.req].interface;
        if let Some(rec) = rec {
            let depth = self.open[t].len();
            rec.events.push(Event::Reply {
                t: now,
                task: self.sys.tasks[t].name.clone(),
                request: self.label(t, o.req),
                thread: self.lane(t, o),
            });
            rec.serves.push(self.served(t, o, depth, now));
        }
        if !self.c.interfaces[i].kind.single_thread()
            && let Some(k) = o.thread
            && let Some(b) = self.busy[i].get_mut(k as usize)
        {
            *b = false;
        }
    }

    /// The record of request `o` of `t`, nested `depth` deep, served
    /// until `now`.
    fn served(&self, t: usize, o: Open, depth: usize, now: Time) -> Serve {
        Serve {
            task: t,
            request: self.label(t, o.req),
            interface: self.reqs[t][o.req].interface,
            lane: self.lane(t, o),
            from: self.sender(t, o),
            depth,
            start: o.start,
            end: now,
        }
    }

    /// Ends the picture at `now`: requests still open are recorded as
    /// served until then.
    pub(crate) fn close(&mut self, now: Time, mut rec: Option<&mut Recording>) {
        for t in 0..self.open.len() {
            while let Some(o) = self.open[t].pop() {
                if let Some(rec) = rec.as_deref_mut() {
                    let depth = self.open[t].len();
                    rec.serves.push(self.served(t, o, depth, now));
                }
            }
        }
    }
}
