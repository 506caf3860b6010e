//! Spring's scheduled jobs: `@Scheduled(cron | fixedRate | fixedDelay …)`, the trigger
//! resolved through the module's config when written as `${key}`.

use super::annotations::{short, values};
use super::{EntryPoint, Finding, Findings, Product, Recogniser};
use crate::facts::CodeFile;
use crate::resolve::MethodKey;

pub(crate) struct Scheduling;

impl Recogniser for Scheduling {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in &file.types {
            for m in &t.methods {
                for a in m.annotations.iter().filter(|a| short(&a.name) == "Scheduled") {
                    let when = values(
                        a,
                        &[
                            "cron",
                            "fixedRate",
                            "fixedDelay",
                            "fixedRateString",
                            "fixedDelayString",
                        ],
                    );
                    let trigger = when.first().cloned().unwrap_or_else(|| "scheduled".into());
                    out.push(Finding::EntryPoint(EntryPoint {
                        kind: "scheduled",
                        trigger: product.resolve(&file.path, &trigger),
                        broker: None,
                        file: file.path.clone(),
                        lines: (m.line_start, m.line_end),
                        handler: MethodKey::of(t, m),
                        handler_name: format!("{}.{}", t.fqn, m.name),
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn scheduled_methods_are_entry_points_with_their_trigger() {
        check(
            r#"
//- /jobs/src/main/resources/application.properties
jobs.cleanup.cron=0 0 3 * * *
//- /jobs/src/main/java/a/Jobs.java
package a;
class Jobs {
    @Scheduled(cron = "${jobs.cleanup.cron}") void cleanup() {}
    @Scheduled(fixedRate = 60000) void poll() {}
    @Scheduled void bare() {}
    void notScheduled() {}
}
"#,
            r#"
config a.Jobs.cleanup -> jobs.cleanup.cron via placeholder
entry scheduled 0 0 3 * * * a.Jobs.cleanup (jobs/src/main/java/a/Jobs.java:3)
entry scheduled 60000 a.Jobs.poll (jobs/src/main/java/a/Jobs.java:4)
entry scheduled scheduled a.Jobs.bare (jobs/src/main/java/a/Jobs.java:5)
"#,
        );
    }

    #[test]
    fn kotlin_scheduled_functions_read_escaped_placeholders() {
        check(
            r#"
//- /jobs/src/main/resources/application.properties
jobs.cleanup.cron=0 0 3 * * *
//- /jobs/src/main/kotlin/a/Jobs.kt
package a

class Jobs {
    @Scheduled(cron = "\${jobs.cleanup.cron}")
    fun cleanup() {}

    @Scheduled(fixedRate = 60_000)
    fun poll() {}
}
"#,
            r#"
config a.Jobs.cleanup -> jobs.cleanup.cron via placeholder
entry scheduled 0 0 3 * * * a.Jobs.cleanup (jobs/src/main/kotlin/a/Jobs.kt:4)
entry scheduled 60_000 a.Jobs.poll (jobs/src/main/kotlin/a/Jobs.kt:7)
"#,
        );
    }
}
