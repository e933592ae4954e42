//! The example systems embedded in the binary, so that every command works
//! without a spec file.

pub struct Example {
    pub name: &'static str,
    pub file: &'static str,
    pub src: &'static str,
}

macro_rules! example {
    ($name:literal) => {
        Example {
            name: $name,
            file: concat!("examples/", $name, ".toml"),
            src: include_str!(concat!("../../../examples/", $name, ".toml")),
        }
    };
}

pub const EXAMPLES: &[Example] = &[
    example!("rtems-table1"),
    example!("pip-chained"),
    example!("pcp-nested"),
    example!("ipcp-actuator"),
    example!("npcs-simple"),
    example!("srp-edf-multiunit"),
    example!("camkes-fig2"),
    example!("camkes-fig3"),
    example!("camkes-fig7"),
];

/// The example used when no spec is given: paper 003's four-CPU test
/// application.
pub fn default_example() -> &'static Example {
    &EXAMPLES[0]
}

/// The uniprocessor example the demo compares uniprocessor protocols on.
pub fn uniprocessor_example() -> &'static Example {
    &EXAMPLES[1]
}

pub fn by_name(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}
