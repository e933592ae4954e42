//! The multiprocessor priority ceiling protocol, shared-memory form
//! (Rajkumar 1990; Lakshmanan, de Niz, Rajkumar 2009). A global section
//! runs above every normal priority, at its resource's ceiling over all
//! users (the boosted band, keyed by that ceiling); waiters suspend in
//! priority order. Local resources follow PCP on their CPU. Nesting a
//! global section inside another is forbidden.

use super::{ResourceFacts, pcp};
use crate::rule::{Hold, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    if !rf.global() {
        return pcp::rule(rf);
    }
    Rule {
        holding: Hold::Boost(rf.ceiling()),
        no_global_nesting: true,
        ..rf.plain()
    }
}
