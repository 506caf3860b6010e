//! Programs' own entry points: a `public static void main(String[] args)`.

use super::{EntryPoint, Finding, Findings, Product, Recogniser};
use crate::facts::CodeFile;
use crate::resolve::MethodKey;

pub(crate) struct MainMethods;

impl Recogniser for MainMethods {
    fn declared(&self, _product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in &file.types {
            for m in &t.methods {
                let is_static = m.modifiers.iter().any(|x| x == "static");
                let takes_args = m.params.len() == 1 && m.params[0].ty.replace(' ', "").starts_with("String");
                if m.name == "main" && is_static && takes_args {
                    out.push(Finding::EntryPoint(EntryPoint {
                        kind: "main",
                        trigger: "main".into(),
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
    fn static_main_with_string_arguments_is_an_entry_point() {
        check(
            r#"
//- /app/src/main/java/a/App.java
package a;
public class App {
    public static void main(String[] args) { }
    public void main(String[] args) { }
    static void main() { }
}
//- /app/src/main/java/a/Tool.java
package a;
class Tool { public static void main(String... args) {} }
"#,
            r#"
entry main main a.App.main (app/src/main/java/a/App.java:3)
entry main main a.Tool.main (app/src/main/java/a/Tool.java:2)
"#,
        );
    }
}
