//! This machine's costs for a system about to run on it, as `rtsync run`
//! charges them: the kernel's and the locks' ([`crate::locks::quick_costs`]),
//! and on a component system each kind of request's call and reply too
//! ([`crate::components::quick_costs`]). The one place that decides which
//! measurements a system needs; the CLI prints what comes back.

use crate::locks::MachineCosts;
use rtsync_model::System;

/// [`crate::locks::quick_costs`] (about a second), and on a component
/// system [`crate::components::quick_costs`] as well (about half a second
/// more). Where only the requests' costs cannot be measured, the rest
/// comes back with the reason, for the caller to say that the bounds
/// leave them out.
pub fn for_system(sys: &System) -> Result<(MachineCosts, Option<String>), String> {
    let mut costs = crate::locks::quick_costs()?;
    let mut left_out = None;
    if sys.components.is_some() {
        match crate::components::quick_costs() {
            Ok(o) => costs.profile.component = o,
            Err(e) => {
                left_out = Some(format!(
                    "the component requests' costs could not be measured ({e})"
                ))
            }
        }
    }
    Ok((costs, left_out))
}
