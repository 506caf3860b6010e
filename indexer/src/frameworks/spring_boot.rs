//! Spring Boot's start-up entry points: `CommandLineRunner` and `ApplicationRunner` beans —
//! a class implementing one (its `run` method is the handler), or a `@Bean` method returning
//! one (the lambda's body is charged to the `@Bean` method, which is then the handler).

use super::annotations::find;
use super::{implements, EntryPoint, Finding, Findings, Product, Recogniser};
use crate::facts::{simple_name, CodeFile};
use crate::resolve::MethodKey;

/// The runner interfaces, by fqn.
const RUNNERS: &[&str] = &[
    "org.springframework.boot.CommandLineRunner",
    "org.springframework.boot.ApplicationRunner",
];

pub(crate) struct StartupRunners;

impl Recogniser for StartupRunners {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in &file.types {
            let runner = implements(product.table, &t.fqn, RUNNERS);
            for m in &t.methods {
                let handler = match &runner {
                    Some(_) if m.name == "run" && m.params.len() == 1 => true,
                    _ => {
                        find(&m.annotations, "Bean").is_some()
                            && m.return_type.as_deref().is_some_and(|r| {
                                matches!(simple_name(r).as_str(), "CommandLineRunner" | "ApplicationRunner")
                            })
                    }
                };
                if !handler {
                    continue;
                }
                out.push(Finding::EntryPoint(EntryPoint {
                    kind: "startup-runner",
                    trigger: "application start".into(),
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
    fn runners_and_runner_beans_run_at_start() {
        check(
            r#"
//- /app/src/main/java/a/Seed.java
package a;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.ApplicationRunner;
class Seed implements CommandLineRunner {
    public void run(String... args) {}
    void run() {}
}
abstract class BaseRunner implements ApplicationRunner {}
class Warmup extends BaseRunner { public void run(ApplicationArguments a) {} }
@Configuration
class Beans {
    @Bean CommandLineRunner loader() { return args -> {}; }
    CommandLineRunner notABean() { return args -> {}; }
}
//- /app/src/main/java/a/LookAlike.java
package a;
class LookAlike implements com.acme.CommandLineRunner { public void run(String... a) {} }
"#,
            r#"
entry startup-runner application start a.Seed.run (app/src/main/java/a/Seed.java:5)
entry startup-runner application start a.Warmup.run (app/src/main/java/a/Seed.java:9)
entry startup-runner application start a.Beans.loader (app/src/main/java/a/Seed.java:12)
"#,
        );
    }
}
