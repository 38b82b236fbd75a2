//! Progress of the long commands (`bench`, `profile`): an indicatif bar on a terminal, and
//! plain lines on stderr otherwise (CI logs, `make bench > log`), where indicatif draws
//! nothing at all.

use indicatif::{ProgressBar, ProgressStyle};

pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar of `len` steps, each called `unit` (e.g. "runs").
    pub fn new(len: u64, unit: &str) -> Progress {
        let template = format!(
            "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit} · {{msg}} · about {{eta}} left"
        );
        let bar = ProgressBar::new(len)
            .with_style(ProgressStyle::with_template(&template).expect("valid template"));
        Progress { bar }
    }

    /// What is happening now.
    pub fn step(&self, message: impl Into<String>) {
        let message = message.into();
        if self.bar.is_hidden() {
            eprintln!(
                "[{}/{}] {message}",
                self.bar.position(),
                self.bar.length().unwrap_or(0)
            );
        }
        self.bar.set_message(message);
    }

    /// A line that stays.
    pub fn say(&self, line: impl AsRef<str>) {
        if self.bar.is_hidden() {
            eprintln!("{}", line.as_ref());
        } else {
            self.bar.println(line.as_ref());
        }
    }

    /// More steps than planned (a batch adding rounds).
    pub fn add(&self, steps: u64) {
        self.bar.inc_length(steps);
    }

    pub fn inc(&self) {
        self.bar.inc(1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
