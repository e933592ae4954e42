//! Components written in Rust: a trait per interface, state behind it,
//! connections declared once; the spec derived from the declarations and
//! checked by the analyzer a spec file gets.
//!
//! ```no_run
//! use rtsync_rt::component::{AssemblyOptions, Builder, Kind};
//!
//! rtsync_rt::interface! {
//!     /// A counter shared by two tasks.
//!     pub trait Counter => CounterRemote {
//!         fn add(&self, n: u64) -> u64;
//!     }
//! }
//!
//! #[derive(Default)]
//! struct Total(std::sync::atomic::AtomicU64);
//! impl Counter for Total {
//!     fn add(&self, n: u64) -> u64 {
//!         self.0.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n
//!     }
//! }
//!
//! let mut b = Builder::new();
//! let counter = b.serve("Count.api", Kind::Inherited, Total::default());
//! b.task("fast", 3, &["Count.api"]).task("slow", 1, &["Count.api"]);
//! let asm = b.build(&AssemblyOptions::default()).unwrap();
//! let _task = asm.bind("fast").unwrap();
//! assert_eq!(counter.add(2).unwrap(), 2);
//! ```

use super::{Assembly, AssemblyOptions, CallError};
use crate::error::RtError;
pub use rtsync_model::component::Kind;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock, Weak};

/// An interface as a requester reaches it: `call` runs a closure on the
/// interface's state, on one of its threads, as the calling thread's
/// request. [`crate::interface!`] writes the typed methods over it.
pub struct Remote<S> {
    name: String,
    state: Arc<S>,
    target: Arc<OnceLock<(Weak<Assembly>, usize)>>,
}

impl<S> Clone for Remote<S> {
    fn clone(&self) -> Self {
        Remote {
            name: self.name.clone(),
            state: self.state.clone(),
            target: self.target.clone(),
        }
    }
}

impl<S: Send + Sync + 'static> Remote<S> {
    /// Runs `f` on the state as a request (the requester's priority and
    /// identity go with it) and returns its answer.
    pub fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&S) -> R + Send + 'static,
    ) -> Result<R, CallError> {
        let not_started = || CallError::NotStarted {
            interface: self.name.clone(),
        };
        let (asm, i) = self.target.get().ok_or_else(not_started)?;
        let asm = asm.upgrade().ok_or_else(not_started)?;
        let state = self.state.clone();
        asm.call(*i, move || f(&state))
    }

    /// The state itself, outside any request (set-up, inspection): what
    /// the handlers share, so what they share with this caller too.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// `Component.interface`.
    pub fn name(&self) -> &str {
        &self.name
    }
}

struct Served {
    name: String,
    kind: Kind,
    priority: Option<u32>,
    threads: Option<u32>,
    target: Arc<OnceLock<(Weak<Assembly>, usize)>>,
}

struct Declared {
    name: String,
    priority: u32,
    cpu: usize,
    uses: Vec<String>,
}

/// Declares components, interfaces and tasks, then starts them
/// ([`Builder::build`]).
#[derive(Default)]
pub struct Builder {
    served: Vec<Served>,
    components: Vec<(String, Vec<String>)>,
    tasks: Vec<Declared>,
}

impl Builder {
    /// An empty assembly.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Serves interface `name` (`Component.interface`) of the given kind
    /// with `state` behind it; the returned handle requests it once the
    /// assembly is built.
    pub fn serve<S: Send + Sync + 'static>(
        &mut self,
        name: &str,
        kind: Kind,
        state: S,
    ) -> Remote<S> {
        let target = Arc::new(OnceLock::new());
        self.served.push(Served {
            name: name.into(),
            kind,
            priority: None,
            threads: None,
            target: target.clone(),
        });
        Remote {
            name: name.into(),
            state: Arc::new(state),
            target,
        }
    }

    /// Gives the last served `fixed` interface its priority (default: its
    /// ceiling).
    pub fn priority(&mut self, p: u32) -> &mut Self {
        if let Some(s) = self.served.last_mut() {
            s.priority = Some(p);
        }
        self
    }

    /// Asks for `n` threads for the last served interface (checked
    /// against the analyzer's size: fewer is an error).
    pub fn threads(&mut self, n: u32) -> &mut Self {
        if let Some(s) = self.served.last_mut() {
            s.threads = Some(n);
        }
        self
    }

    /// Component `name`'s connections: the interfaces its handlers
    /// request.
    pub fn component(&mut self, name: &str, uses: &[&str]) -> &mut Self {
        self.components
            .push((name.into(), uses.iter().map(|s| s.to_string()).collect()));
        self
    }

    /// A task (an active component): its priority (larger first) and the
    /// interfaces it requests. On CPU 0; see [`Builder::task_on`].
    pub fn task(&mut self, name: &str, priority: u32, uses: &[&str]) -> &mut Self {
        self.task_on(name, priority, 0, uses)
    }

    /// A task on system CPU `cpu`.
    pub fn task_on(&mut self, name: &str, priority: u32, cpu: usize, uses: &[&str]) -> &mut Self {
        self.tasks.push(Declared {
            name: name.into(),
            priority,
            cpu,
            uses: uses.iter().map(|s| s.to_string()).collect(),
        });
        self
    }

    /// The spec the declarations mean, as the analyzer reads it. What the
    /// code does inside a handler is not known here, so every method may
    /// request every interface its component uses, and every task every
    /// interface it uses: the ceilings and pools derived are those of
    /// the worst control flow the connections allow (a cycle among the
    /// connections is refused, as the analyzer refuses it in a spec).
    pub fn spec(&self) -> String {
        let mut s = String::new();
        let cpus = self.tasks.iter().map(|t| t.cpu + 1).max().unwrap_or(1);
        let _ = writeln!(
            s,
            "# Derived from the code's declarations.\n[platform]\ncpus = {cpus}\n"
        );
        let calls = |uses: &[String]| -> String {
            let mut b = String::from("[ { compute = \"1us\" }");
            for u in uses {
                let _ = write!(b, ", {{ call = {:?} }}", u);
            }
            b.push_str(" ]");
            b
        };
        // Each component once, in the order its first interface came.
        let mut comps: Vec<&str> = Vec::new();
        for f in &self.served {
            let c = f.name.split('.').next().unwrap_or("");
            if !comps.contains(&c) {
                comps.push(c);
            }
        }
        for c in comps {
            let uses: Vec<String> = self
                .components
                .iter()
                .filter(|(n, _)| n == c)
                .flat_map(|(_, u)| u.clone())
                .collect();
            let _ = writeln!(s, "[[component]]\nname = {c:?}\nuses = {uses:?}");
            for f in self
                .served
                .iter()
                .filter(|f| f.name.split('.').next() == Some(c))
            {
                let iname = f.name.split_once('.').map_or("", |x| x.1);
                let _ = writeln!(
                    s,
                    "[[component.interface]]\nname = {iname:?}\nprotocol = {:?}",
                    f.kind.name()
                );
                if let Some(p) = f.priority {
                    let _ = writeln!(s, "priority = {p}");
                }
                if let Some(n) = f.threads {
                    let _ = writeln!(s, "threads = {n}");
                }
                let _ = writeln!(s, "methods.any = {}", calls(&uses));
            }
            s.push('\n');
        }
        for t in &self.tasks {
            let _ = writeln!(
                s,
                "[[task]]\nname = {:?}\nperiod = \"1s\"\npriority = {}\ncpu = {}\nuses = {:?}\nbody = {}\n",
                t.name,
                t.priority,
                t.cpu,
                t.uses,
                calls(&t.uses)
            );
        }
        s
    }

    /// Checks the derived spec ([`Builder::spec`]) with the analyzer and
    /// starts the threads. A mistake in the declarations comes back as
    /// the analyzer's diagnostic, pointing into the derived spec.
    pub fn build(self, opts: &AssemblyOptions) -> Result<Arc<Assembly>, RtError> {
        let spec = self.spec();
        let (sys, _) = rtsync_model::spec::load_str(&spec, Some("(declared components)"))
            .map_err(RtError::Invalid)?;
        let asm = Arc::new(Assembly::new(&sys, opts)?);
        for f in &self.served {
            let i = asm.interface(&f.name).ok_or_else(|| RtError::Unknown {
                what: "interface",
                name: f.name.clone(),
            })?;
            let _ = f.target.set((Arc::downgrade(&asm), i));
        }
        Ok(asm)
    }
}

/// Declares an interface as a Rust trait and, beside it, the trait its
/// requesters use: the same methods on [`Remote`], each returning
/// `Result<_, CallError>` (a handler that panics answers with an error).
/// Neither carries the requester's priority or identity: they travel
/// with the request ([`super::requester`]).
///
/// ```
/// rtsync_rt::interface! {
///     /// A store.
///     pub trait Store => StoreRemote {
///         fn put(&self, key: u32, value: u64);
///         fn get(&self, key: u32) -> Option<u64>;
///     }
/// }
/// ```
#[macro_export]
macro_rules! interface {
    (
        $(#[$meta:meta])*
        $vis:vis trait $name:ident => $remote:ident {
            $(
                $(#[$mmeta:meta])*
                fn $method:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) $(-> $ret:ty)?;
            )*
        }
    ) => {
        $(#[$meta])*
        $vis trait $name: Send + Sync + 'static {
            $(
                $(#[$mmeta])*
                fn $method(&self $(, $arg: $ty)*) $(-> $ret)?;
            )*
        }

        #[doc = concat!("Requests of [`", stringify!($name), "`] through a [`", stringify!($crate), "::component::Remote`].")]
        $vis trait $remote {
            $(
                $(#[$mmeta])*
                fn $method(&self $(, $arg: $ty)*) -> ::std::result::Result<$crate::interface!(@ret $($ret)?), $crate::component::CallError>;
            )*
        }

        impl<S: $name> $remote for $crate::component::Remote<S> {
            $(
                fn $method(&self $(, $arg: $ty)*) -> ::std::result::Result<$crate::interface!(@ret $($ret)?), $crate::component::CallError> {
                    self.call(move |s: &S| <S as $name>::$method(s $(, $arg)*))
                }
            )*
        }
    };
    (@ret) => { () };
    (@ret $ret:ty) => { $ret };
}
