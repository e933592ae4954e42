//! Loading the SPEC argument: a file, a bundled example by name, or the
//! default bundled example.

use crate::bundled;
use rtsync_model::{Diagnostics, Protocol, System, load_file, load_str};
use std::path::Path;

pub struct Loaded {
    pub system: System,
    pub diagnostics: Diagnostics,
    pub label: String,
}

/// Loads `spec` (or the bundled example), optionally switching every
/// resource to `protocol` and re-validating.
pub fn load(spec: Option<&Path>, protocol: Option<Protocol>) -> Result<Loaded, Diagnostics> {
    let bundled_named = spec
        .filter(|p| !p.exists())
        .and_then(|p| bundled::by_name(&p.display().to_string()));
    let (system, diagnostics, label) = match (spec, bundled_named) {
        (Some(p), None) => {
            let (s, d) = load_file(p)?;
            (s, d, p.display().to_string())
        }
        (_, e) => {
            let e = e.unwrap_or_else(bundled::default_example);
            let (s, d) = load_str(e.src, Some(e.file))?;
            (s, d, format!("{} (bundled)", e.file))
        }
    };
    match protocol {
        None => Ok(Loaded {
            system,
            diagnostics,
            label,
        }),
        Some(p) => {
            let switched = system.with_protocol(p);
            // Validation names the spec's file in every message itself.
            let d = rtsync_model::validate(&switched);
            if d.has_errors() {
                return Err(d);
            }
            Ok(Loaded {
                system: switched,
                diagnostics: d,
                label: format!("{label}, all resources under {p}"),
            })
        }
    }
}
