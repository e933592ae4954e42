//! The spec as serde reads it, every value with its byte span: the
//! loader ([`crate::spec`]) converts it, the component lowering
//! ([`crate::component`]) rewrites its requests first.

use crate::system::Priority;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSpec {
    pub(crate) name: Option<String>,
    #[allow(dead_code)]
    pub(crate) description: Option<String>,
    pub(crate) platform: Option<Spanned<RawPlatform>>,
    #[serde(default, rename = "resource")]
    pub(crate) resources: Vec<Spanned<RawResource>>,
    /// `None` when the text has no `task` key (a spec read in sections
    /// must not define tasks both in its rest and in its task groups).
    #[serde(rename = "task")]
    pub(crate) tasks: Option<Vec<Spanned<RawTask>>>,
    /// Passive components and the interfaces they provide (paper 001).
    #[serde(default, rename = "component")]
    pub(crate) components: Vec<Spanned<RawComponent>>,
    /// Files of components read with this spec ([`crate::include`]),
    /// appended to the text before it is read.
    #[allow(dead_code)]
    pub(crate) include: Option<Vec<String>>,
}

/// One batch of a spec's task groups (see [`crate::sections`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTasks {
    pub(crate) task: Vec<Spanned<RawTask>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPlatform {
    pub(crate) cpus: Option<Spanned<i64>>,
    pub(crate) scheduler: Option<Spanned<String>>,
    pub(crate) protocol: Option<Spanned<String>>,
    pub(crate) priorities: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawResource {
    pub(crate) name: Spanned<String>,
    pub(crate) protocol: Option<Spanned<String>>,
    pub(crate) units: Option<Spanned<i64>>,
    pub(crate) sync_cpu: Option<Spanned<i64>>,
    /// A ceiling given in the spec (`ceiling = 3`): what a lowered
    /// `fixed` interface at a given priority is written back as.
    pub(crate) ceiling: Option<Spanned<i64>>,
    /// Set by the component lowering (a `fixed` interface's given
    /// priority); not a spec key.
    #[serde(skip)]
    pub(crate) lowered_ceiling: Option<Priority>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTask {
    pub(crate) name: Spanned<String>,
    /// The interfaces the task's own code may request (its component's
    /// connections, paper 001).
    pub(crate) uses: Option<Vec<Spanned<String>>>,
    pub(crate) period: Option<Spanned<toml::Value>>,
    pub(crate) deadline: Option<Spanned<toml::Value>>,
    pub(crate) jitter: Option<Spanned<toml::Value>>,
    pub(crate) offset: Option<Spanned<toml::Value>>,
    pub(crate) priority: Option<Spanned<i64>>,
    pub(crate) cpu: Option<Spanned<i64>>,
    pub(crate) wcet: Option<Spanned<toml::Value>>,
    pub(crate) body: Option<Spanned<Vec<Spanned<RawSegment>>>>,
}

#[derive(Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSegment {
    pub(crate) compute: Option<Spanned<toml::Value>>,
    pub(crate) suspend: Option<Spanned<toml::Value>>,
    pub(crate) lock: Option<Spanned<String>>,
    pub(crate) hold: Option<Spanned<toml::Value>>,
    pub(crate) units: Option<Spanned<i64>>,
    pub(crate) body: Option<Vec<Spanned<RawSegment>>>,
    /// A request to a component interface's method (`"C.i.m"`); replaced
    /// by the component lowering before conversion.
    pub(crate) call: Option<Spanned<String>>,
}

/// A `[[component]]` table.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawComponent {
    pub(crate) name: Spanned<String>,
    /// The interfaces its methods may request (its connections).
    #[serde(default)]
    pub(crate) uses: Vec<Spanned<String>>,
    #[serde(default, rename = "interface")]
    pub(crate) interfaces: Vec<Spanned<RawInterface>>,
}

/// A `[[component.interface]]` table.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawInterface {
    pub(crate) name: Spanned<String>,
    pub(crate) protocol: Option<Spanned<String>>,
    pub(crate) priority: Option<Spanned<i64>>,
    pub(crate) threads: Option<Spanned<i64>>,
    pub(crate) recursion: Option<Spanned<i64>>,
    #[serde(default)]
    pub(crate) methods: BTreeMap<String, Spanned<Vec<Spanned<RawSegment>>>>,
}
