//! Spring HATEOAS and `MvcUriComponentsBuilder`: `linkTo(methodOn(X.class).m(…))` and
//! `fromMethodCall(on(X.class).m(…))` record a method invocation on a proxy to build a
//! link to `m`'s route; `m` never runs. Such a call site is not a call (`NotACall`), so it
//! gives neither a Calls edge nor an unresolved call.

use super::{Finding, Findings, Product, Recogniser};
use crate::facts::{CodeFile, Receiver};
use crate::resolve::ResolvedCall;

/// The proxy factories whose results record calls instead of making them.
const PROXIES: &[&str] = &["methodOn", "on", "controller"];

pub(crate) struct SpringHateoas;

impl Recogniser for SpringHateoas {
    fn calls(&self, _product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        for call in calls {
            let Some((_, _, site)) = super::call_site(file, call) else {
                continue;
            };
            let Receiver::Call(proxy) = &site.receiver else {
                continue;
            };
            let from_link_builder = PROXIES.contains(&proxy.name.as_str())
                && proxy
                    .arg_texts
                    .first()
                    .is_some_and(|a| a.trim_end().ends_with(".class"));
            if from_link_builder {
                out.push(Finding::NotACall {
                    caller: call.caller.clone(),
                    site: call.site,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn a_link_built_from_a_method_is_not_a_call_of_it() {
        check(
            r#"
//- /shop/src/main/java/a/OrderController.java
package a;
import static org.springframework.hateoas.server.mvc.WebMvcLinkBuilder.*;
@RestController
class OrderController {
    @GetMapping("/orders/{id}") Order get(long id) { return null; }
    Object link(long id) { return linkTo(methodOn(OrderController.class).get(id)).withSelfRel(); }
    Object call(long id) { return get(id); }
}
"#,
            r#"
endpoint GET /orders/{id} spring-mvc a.OrderController.get (shop/src/main/java/a/OrderController.java:5)
not-a-call a.OrderController.link #2
"#,
        );
    }
}
