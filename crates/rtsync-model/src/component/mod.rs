//! Components that serve requests (paper 001: Sudvarg, Sun, Li, Gill,
//! Zhang, "Priority-based concurrency and shared resource access
//! mechanisms for nested intercomponent requests in CAmkES", 2024).
//!
//! A task is an *active* component: it runs its body and may request
//! methods of the interfaces it is connected to (`uses`). A *passive*
//! component (`[[component]]`) provides interfaces; each method's body
//! computes, locks plain resources and requests other interfaces, in turn
//! through its component's connections. An interface declares how its
//! requests are served ([`Kind`]):
//!
//! - `propagated`: the handler runs at the requester's priority, one pool
//!   thread per concurrent request, preemptible by higher requests
//!   (Sect. 4.3). Scheduling-wise the requester's thread of control
//!   continues in the component: the body runs as if inlined.
//! - `inherited`: mutually exclusive under PIP across the request; a
//!   holder blocked on a nested request passes an inherited priority
//!   down the chain (`nest`, Sect. 4.2). As a PIP resource held for the
//!   whole method, with the nested requests inside the section.
//! - `fixed`: one thread at the interface's ceiling, or at a given
//!   priority (IPCP, Sect. 4.1); a nested request carries the thread's
//!   priority, not the originating task's (the paper's correction of its
//!   earlier work). As an IPCP resource held for the whole method.
//! - `fixed-npcs`: one thread at the top priority (NPCS).
//!
//! **Lowering.** The spec loader replaces every request by what it means
//! for scheduling ([`lower`]): a propagated request by the method's body
//! inline, an exclusive one by a critical section on a resource named
//! after the interface (`C.i`) under PIP, IPCP or NPCS, whose body is the
//! method's, nested requests included. The result is an ordinary system
//! that mixes protocols per resource, so the analysis, the simulator and
//! the runtime apply unchanged, and the mixed-protocol rules (a request
//! that may suspend inside a non-preemptive section is refused, for
//! instance) apply to components as to locks. Two things are not in the
//! lowered system and live here: the request structure (which interface
//! and method each section came from, for the analyzer and paper 001's
//! equations) and the facts the pool threads need (ceilings, pool sizes).
//! The protocol overheads of paper 001 (call, reply, nested update) are
//! not in the lowered system: an overhead profile writes them in where the
//! runtime pays them (`rtsync_analysis::overheads::Profile::inflate`), as
//! it writes lock costs, and paper 001's own analysis
//! (`rtsync_analysis::components`) charges them in its terms.

pub mod lower;
mod pool;

pub use crate::interface::{Components, Interface, Kind, Request, TOP};
