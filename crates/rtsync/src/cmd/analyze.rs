use super::{NOT_SCHEDULABLE, OK, bad_input};
use rtsync_analysis::{BoundForm, Heuristic, Options, TestSelection, Verdict, analyze};
use rtsync_report::analysis as report;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::Input,
    /// Which test: rta (FP response-time analysis; under EDF the demand
    /// criterion), edf (demand criterion and Baker's test; EDF only), ll
    /// (Liu-Layland with blocking) or hyperbolic (both fixed priorities
    /// only), all (every test that fits the system's scheduler).
    #[arg(long, default_value = "all", value_parser = |s: &str| s.parse::<TestSelection>())]
    pub test: TestSelection,
    /// Output format. The JSON schema is documented in docs/analysis-json.md.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// How to place tasks that have no CPU: wfd, ffd, bfd or sync
    /// (keeps resource-sharing tasks together).
    #[arg(long, default_value = "sync", value_parser = |s: &str| s.parse::<Heuristic>())]
    pub partition: Heuristic,
    /// Blocking bounds: fixed (per request, no job windows: fastest,
    /// loosest), classic (closed forms lowered by job windows) or lp (also
    /// the LP bounds, where the protocol has one; never above classic).
    #[arg(long, default_value = "classic", value_parser = |s: &str| s.parse::<BoundForm>(),
        long_help = super::forms_help(
        "Blocking bounds, each never above the one before: fixed (each request's closed-form \
         bound on its own, reading no response time through the blocking terms; the fastest), \
         classic (the default: lowered by the job-window form, which counts only \
         the requests other jobs issue within a job's window and so iterates the whole system \
         over its response times) or lp (also the linear-programming bounds of Brandenburg \
         2013 and Wieder and Brandenburg 2013, each term the smaller of the two)."))]
    pub analysis: BoundForm,
}

pub fn run(a: Args) -> u8 {
    let (loaded, overheads) = match a.input.load() {
        Ok(x) => x,
        Err(code) => return code,
    };
    let sched = loaded.system.platform.scheduler;
    if let Some(why) = a.test.inapplicable(sched) {
        // A test that cannot apply says nothing of the system: no verdict,
        // so no exit code of one.
        let (other, name) = match sched {
            rtsync_model::Scheduler::Fp => ("edf", "fixed priority"),
            rtsync_model::Scheduler::Edf => ("fp", "EDF"),
        };
        let flags: Vec<String> = TestSelection::fitting(sched)
            .map(|t| format!("--test {}", t.name()))
            .collect();
        let fits = format!(
            "{} fit a system scheduled by {name}; or set scheduler = \"{other}\" under [platform]",
            flags.join(", ")
        );
        eprintln!(
            "error: --test {}: does not apply to {}: {why}\n  hint: {fits}",
            a.test.name(),
            loaded.label,
        );
        return super::BAD_INPUT;
    }
    let opts = Options {
        tests: a.test,
        overheads: overheads.clone(),
        heuristic: a.partition,
        first_miss: false,
        form: a.analysis,
    };
    let analysis = match analyze(&loaded.system, &opts) {
        Ok(x) => x,
        Err(d) => return bad_input(&d),
    };
    match a.format {
        Format::Json => {
            let doc = report::json(&analysis, &loaded.label);
            println!(
                "{}",
                serde_json::to_string_pretty(&doc).expect("serialisable")
            );
        }
        Format::Table => {
            for d in loaded.diagnostics.iter() {
                eprintln!("{d}");
            }
            print!("{}", report::analysis_table(&analysis, &loaded.label));
            if a.analysis == BoundForm::Lp
                && !rtsync_analysis::blocking::lp_applies(analysis.system.platform.scheduler)
            {
                println!(
                    "note: --analysis lp: the LP bounds are charged under fixed priorities; \
                     under {} the blocking terms are the classic ones.",
                    analysis.system.platform.scheduler
                );
            }
            let windows = rtsync_analysis::blocking::job_windows_apply(
                analysis.result.protocol,
                analysis.result.scheduler,
            );
            if a.analysis == BoundForm::Fixed && !windows {
                println!(
                    "note: --analysis fixed changes nothing here: job windows exist only for {} \
                     (one of them on every resource, under fixed priorities), so these are the \
                     classic bounds.",
                    rtsync_analysis::blocking::job_window_protocols()
                );
            }
            let sys = &loaded.system;
            if let Some(c) = &sys.components
                && sys.platform.cpus == 1
            {
                let outside = rtsync_analysis::components::outside_the_model(sys, c);
                if outside.is_empty() {
                    let costs = overheads.as_ref().map(|o| o.component).unwrap_or_default();
                    let p = rtsync_analysis::components::analyse(sys, c, &costs);
                    print!(
                        "{}",
                        rtsync_report::components::paper001(sys, &p, costs != Default::default())
                    );
                } else {
                    print!(
                        "{}",
                        rtsync_report::components::paper001_outside(sys, &outside)
                    );
                }
            }
        }
    }
    match analysis.result.verdict {
        Verdict::Schedulable => OK,
        _ => NOT_SCHEDULABLE,
    }
}
