//! Quartz jobs: a class implementing `org.quartz.Job` (its `execute`) or extending
//! Spring's `QuartzJobBean` (its `executeInternal`) is an entry point triggered by the
//! scheduler; the trigger named is the job class (its schedule lives in `JobDetail` and
//! `Trigger` beans or the database, which are not read).

use super::{implements, EntryPoint, Finding, Findings, Product, Recogniser};
use crate::facts::CodeFile;
use crate::resolve::MethodKey;

const JOB: &[&str] = &["org.quartz.Job"];
const JOB_BEAN: &[&str] = &["org.springframework.scheduling.quartz.QuartzJobBean"];

pub(crate) struct Quartz;

impl Recogniser for Quartz {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in &file.types {
            let method = if implements(product.table, &t.fqn, JOB_BEAN).is_some() {
                "executeInternal"
            } else if implements(product.table, &t.fqn, JOB).is_some() {
                "execute"
            } else {
                continue;
            };
            for m in t
                .methods
                .iter()
                .filter(|m| m.name == method && m.params.len() == 1)
            {
                out.push(Finding::EntryPoint(EntryPoint {
                    kind: "quartz-job",
                    trigger: t.name.clone(),
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

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn quartz_jobs_are_entry_points() {
        check(
            r#"
//- /jobs/src/main/java/a/Cleanup.java
package a;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.springframework.scheduling.quartz.QuartzJobBean;
class Cleanup implements Job { public void execute(JobExecutionContext c) {} }
class Report extends QuartzJobBean { protected void executeInternal(JobExecutionContext c) {} }
class NotAJob { public void execute(JobExecutionContext c) {} }
"#,
            r#"
entry quartz-job Cleanup a.Cleanup.execute (jobs/src/main/java/a/Cleanup.java:5)
entry quartz-job Report a.Report.executeInternal (jobs/src/main/java/a/Cleanup.java:6)
"#,
        );
    }
}
