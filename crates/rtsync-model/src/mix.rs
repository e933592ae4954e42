//! How the protocols of one system's resources combine: the one place
//! that decides which mixes rtsync accepts, and how the analysis must read
//! each accepted one ([`Mix`]).
//!
//! Each resource names its protocol (the platform's is the default). A mix
//! is accepted where a sound blocking bound exists for it:
//!
//! - **one protocol**, as before;
//! - **a multiprocessor protocol with the uniprocessor protocol it
//!   prescribes for local resources**: MPCP with PCP (Rajkumar 1990, whose
//!   local resources follow PCP), MSRP with SRP (Gai et al. 2001). The
//!   protocol core gives those local resources the same rules either way,
//!   so the multiprocessor protocol's own analysis applies unchanged;
//! - **uniprocessor protocols side by side** (NPCS, PIP, PCP, IPCP, SRP;
//!   every resource local to one CPU), bounded per CPU by
//!   `rtsync-analysis`'s `blocking::mix`;
//! - **FMLP short and long resources** (Block, Leontyev, Brandenburg and
//!   Anderson 2007, the mix the FMLP was published as), bounded by
//!   `blocking::fmlp`.
//!
//! Everything else is refused with both resources named ([`Refusal`]).
//! The nesting rules across protocols (a suspending request inside a
//! section that keeps its CPU, PCP beside a protocol without its ceiling
//! test) are [`crate::nesting`]'s; a lock-order cycle through resources of
//! different protocols is validation's, in `validate.rs`.

use crate::Protocol;
use crate::system::{ResourceId, System};

/// How a system's protocols combine, as the analysis reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// The system has no resource.
    Empty,
    /// Every resource is arbitrated as this protocol arbitrates its own:
    /// one protocol, or MPCP / MSRP with local resources under PCP / SRP.
    One(Protocol),
    /// Local resources only, under two or more uniprocessor protocols.
    Uniprocessor,
    /// FMLP short resources beside FMLP long ones.
    Fmlp,
}

impl Mix {
    /// The protocol whose analysis covers the whole system, if one does.
    pub fn protocol(self) -> Option<Protocol> {
        match self {
            Mix::One(p) => Some(p),
            _ => None,
        }
    }
}

impl System {
    /// The protocol whose rules and analysis cover every resource: the
    /// one protocol, or MPCP / MSRP beside the local protocol they
    /// prescribe; `None` without resources and for other mixes
    /// (this module).
    pub fn protocol(&self) -> Option<Protocol> {
        self.mix().ok().and_then(Mix::protocol)
    }
    /// How the resources' protocols combine ([`classify`]);
    /// validation refuses the mixes that fail here.
    pub fn mix(&self) -> Result<Mix, Refusal> {
        classify(self)
    }
    /// The resources' protocols as a person reads them: `pcp`,
    /// `fmlp-s + fmlp-l`, `none`.
    pub fn protocol_label(&self) -> String {
        label(self)
    }
    /// The protocols as a header line names them: `protocol pcp`,
    /// `protocols fmlp-s + fmlp-l`, or `no shared resources`, never
    /// `protocol none`; with components, [`System::with_components`].
    pub fn protocol_phrase(&self) -> String {
        self.with_components(match protocols(self).len() {
            0 => "no shared resources".into(),
            1 => format!("protocol {}", label(self)),
            _ => format!("protocols {}", label(self)),
        })
    }

    /// A header's protocol phrase with [`System::components_phrase`] after
    /// it, where the system has components: every header that names the
    /// protocols goes through here (`rtsync analyze`'s, which says how a
    /// mix was analysed, too).
    pub fn with_components(&self, protocols: String) -> String {
        match self.components_phrase() {
            Some(c) => format!("{protocols}, {c}"),
            None => protocols,
        }
    }

    /// The component interfaces by kind, as a header line names them
    /// after the protocols (`2 component interfaces: 2 propagated`), so
    /// that a component spec whose interfaces all propagate (no lock
    /// among them: "no shared resources") does not read as if its
    /// components went unseen. `None` without components.
    pub fn components_phrase(&self) -> Option<String> {
        let c = self
            .components
            .as_deref()
            .filter(|c| !c.interfaces.is_empty())?;
        let kinds: Vec<String> = crate::interface::Kind::ALL
            .into_iter()
            .filter_map(|k| {
                let n = c.interfaces.iter().filter(|f| f.kind == k).count();
                (n > 0).then(|| format!("{n} {}", k.name()))
            })
            .collect();
        let n = c.interfaces.len();
        Some(format!(
            "{n} component interface{}: {}",
            if n == 1 { "" } else { "s" },
            kinds.join(", ")
        ))
    }
}

/// Why a mix is refused: two resources whose protocols rtsync does not
/// analyse together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The resource the mix is judged against (the first of its kind).
    pub first: ResourceId,
    /// The resource whose protocol does not go with `first`'s.
    pub other: ResourceId,
    /// What rtsync accepts beside `first`'s protocol, for the hint.
    pub accepted: String,
}

/// The protocols of `sys`'s resources, each once, in [`Protocol::ALL`]
/// order.
pub fn protocols(sys: &System) -> Vec<Protocol> {
    let mut seen = [false; Protocol::ALL.len()];
    for r in &sys.resources {
        seen[r.protocol as usize] = true;
    }
    Protocol::ALL
        .into_iter()
        .filter(|&p| seen[p as usize])
        .collect()
}

/// The protocols of `sys` as a person reads them: `pcp`, `fmlp-s +
/// fmlp-l`, or `none`.
pub fn label(sys: &System) -> String {
    let ps = protocols(sys);
    if ps.is_empty() {
        return "none".into();
    }
    ps.iter().map(|p| p.name()).collect::<Vec<_>>().join(" + ")
}

/// Classifies the mix of `sys`, or names two resources whose protocols do
/// not go together.
pub fn classify(sys: &System) -> Result<Mix, Refusal> {
    let ps = protocols(sys);
    match ps.as_slice() {
        [] => return Ok(Mix::Empty),
        [p] => return Ok(Mix::One(*p)),
        _ => {}
    }
    if ps.iter().all(|p| p.is_uniprocessor()) {
        return Ok(Mix::Uniprocessor);
    }
    if ps == [Protocol::FmlpS, Protocol::FmlpL] {
        return Ok(Mix::Fmlp);
    }
    // One multiprocessor protocol with the local protocol it prescribes.
    let multi: Vec<Protocol> = ps
        .iter()
        .copied()
        .filter(|p| !p.is_uniprocessor())
        .collect();
    if let [m] = multi.as_slice()
        && let Some(local) = m.local_protocol()
        && ps.iter().all(|&p| p == *m || p == local)
    {
        return Ok(Mix::One(*m));
    }
    Err(refusal(sys))
}

/// The two resources to name when the mix is refused: the first resource
/// of a multiprocessor protocol, and the first resource whose protocol
/// does not go with it.
fn refusal(sys: &System) -> Refusal {
    let first = sys
        .resources
        .iter()
        .position(|r| !r.protocol.is_uniprocessor())
        .unwrap_or(0);
    let p = sys.resources[first].protocol;
    let partners = partners(p);
    let other = sys
        .resources
        .iter()
        .position(|r| r.protocol != p && !partners.contains(&r.protocol))
        .unwrap_or(0);
    let accepted = if partners.is_empty() {
        format!("{p} is analysed only on its own")
    } else {
        format!(
            "{p} is analysed beside {} only",
            partners
                .iter()
                .map(|q| q.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Refusal {
        first,
        other,
        accepted,
    }
}

/// The protocols rtsync analyses in one system with `p`.
pub fn partners(p: Protocol) -> Vec<Protocol> {
    Protocol::ALL
        .into_iter()
        .filter(|&q| q != p && goes_with(p, q))
        .collect()
}

/// Whether `p` and `q` may be mixed in one system (the pairs `classify`
/// accepts; a system of three protocols must be accepted as a whole).
fn goes_with(p: Protocol, q: Protocol) -> bool {
    (p.is_uniprocessor() && q.is_uniprocessor())
        || matches!(
            (p, q),
            (Protocol::FmlpS, Protocol::FmlpL) | (Protocol::FmlpL, Protocol::FmlpS)
        )
        || p.local_protocol() == Some(q)
        || q.local_protocol() == Some(p)
}

/// The protocol whose rules resource `r` follows in the protocol core: its
/// own, or, for a local resource of a multiprocessor protocol that
/// prescribes a uniprocessor protocol locally, that one. Two resources
/// with the same family share one deadlock-avoidance rule (one system
/// ceiling, one group lock).
pub fn family(sys: &System, r: ResourceId, global: bool) -> Protocol {
    family_of(sys.resources[r].protocol, global)
}

/// [`family`] of a resource under protocol `p`, `global` or not.
pub fn family_of(p: Protocol, global: bool) -> Protocol {
    match p.local_protocol() {
        Some(local) if !global => local,
        _ => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(protocols: &[&str], cpus: usize) -> System {
        let mut s = format!(
            "[platform]\ncpus = {cpus}\n[[task]]\nname = \"idle\"\nperiod = \"10ms\"\ncpu = 0\nwcet = \"1ms\"\n"
        );
        for (i, p) in protocols.iter().enumerate() {
            s += &format!("[[resource]]\nname = \"R{i}\"\nprotocol = \"{p}\"\n");
            if *p == "dpcp" || *p == "dflp" {
                s += "sync_cpu = 0\n";
            }
        }
        // One user per resource, on CPU 0: every resource local.
        for i in 0..protocols.len() {
            s += &format!(
                "[[task]]\nname = \"t{i}\"\nperiod = \"10ms\"\ncpu = 0\nbody = [ {{ lock = \"R{i}\", hold = \"1ms\" }} ]\n"
            );
        }
        crate::parse_str(&s, None).unwrap_or_else(|d| panic!("{d}"))
    }

    #[test]
    fn accepted_mixes_are_classified() {
        assert_eq!(classify(&sys(&[], 1)), Ok(Mix::Empty));
        assert_eq!(
            classify(&sys(&["pip", "pip"], 1)),
            Ok(Mix::One(Protocol::Pip))
        );
        assert_eq!(
            classify(&sys(&["pip", "ipcp", "npcs"], 1)),
            Ok(Mix::Uniprocessor)
        );
        assert_eq!(classify(&sys(&["fmlp-l", "fmlp-s"], 2)), Ok(Mix::Fmlp));
        assert_eq!(
            classify(&sys(&["pcp", "mpcp", "pcp"], 2)),
            Ok(Mix::One(Protocol::Mpcp))
        );
        assert_eq!(
            classify(&sys(&["msrp", "srp"], 2)),
            Ok(Mix::One(Protocol::Msrp))
        );
    }

    #[test]
    fn refused_mixes_name_both_resources_and_what_goes() {
        // MPCP goes with PCP, not with IPCP: R2 is the odd one.
        let r = classify(&sys(&["pcp", "mpcp", "ipcp"], 2)).unwrap_err();
        assert_eq!((r.first, r.other), (1, 2));
        assert_eq!(r.accepted, "mpcp is analysed beside pcp only");
        let r = classify(&sys(&["fmlp-s", "msrp"], 2)).unwrap_err();
        assert_eq!((r.first, r.other), (0, 1));
        assert!(r.accepted.contains("fmlp-l"), "{}", r.accepted);
        let r = classify(&sys(&["dpcp", "mrsp"], 2)).unwrap_err();
        assert_eq!(r.accepted, "dpcp is analysed only on its own");
    }

    #[test]
    fn every_accepted_pair_is_classified_and_every_other_refused() {
        for p in Protocol::ALL {
            for q in Protocol::ALL {
                let s = sys(&[p.name(), q.name()], 2);
                assert_eq!(
                    classify(&s).is_ok(),
                    p == q || goes_with(p, q),
                    "{p} with {q}"
                );
            }
        }
    }

    #[test]
    fn phrases_name_the_protocols_or_say_there_are_none() {
        assert_eq!(sys(&["pcp"], 1).protocol_phrase(), "protocol pcp");
        assert_eq!(
            sys(&["fmlp-l", "fmlp-s"], 2).protocol_phrase(),
            "protocols fmlp-s + fmlp-l"
        );
        assert_eq!(sys(&[], 1).protocol_phrase(), "no shared resources");
    }

    /// Paper 001's Fig. 3 propagates through both interfaces, so no lock
    /// is shared, and the header still names its components; a fixed
    /// interface beside them is a resource (IPCP) and is counted by kind.
    #[test]
    fn component_interfaces_follow_the_protocols_by_kind() {
        let text = include_str!("../../../examples/camkes-fig3.toml");
        let (s, _) = crate::load_str(text, None).unwrap();
        assert_eq!(
            s.protocol_phrase(),
            "no shared resources, 2 component interfaces: 2 propagated"
        );
        let fixed = text.replacen(
            "protocol = \"propagated\"\nmethods.run = [ { compute = \"400us\" } ]",
            "protocol = \"fixed\"\nmethods.run = [ { compute = \"400us\" } ]",
            1,
        );
        assert_ne!(fixed, text);
        let (s, _) = crate::load_str(&fixed, None).unwrap();
        assert_eq!(
            s.protocol_phrase(),
            "protocol ipcp, 2 component interfaces: 1 propagated, 1 fixed"
        );
        assert_eq!(sys(&["pcp"], 1).components_phrase(), None);
    }

    #[test]
    fn labels_list_each_protocol_once() {
        assert_eq!(
            label(&sys(&["fmlp-l", "fmlp-s", "fmlp-l"], 2)),
            "fmlp-s + fmlp-l"
        );
        assert_eq!(label(&sys(&[], 1)), "none");
    }
}
