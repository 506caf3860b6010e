//! OpenFeign clients: every mapped method of a `@FeignClient` interface is an outbound
//! call to its service (`name`/`value`, placeholders resolved through the module's
//! config), asking for the endpoint with the same service, verb and route. A client with
//! an explicit `url` calls outside the company: its calls stay boundaries to that host.

use super::annotations::{find, values};
use super::spring_mvc::mapping_routes;
use super::{Finding, Findings, HttpCall, Product, Recogniser};
use crate::facts::{CodeFile, TypeKind};
use crate::resolve::MethodKey;

pub(crate) struct Feign;

impl Recogniser for Feign {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in file.types.iter().filter(|t| t.kind == TypeKind::Interface) {
            let Some(client) = find(&t.annotations, "FeignClient") else {
                continue;
            };
            let Some(service) = values(client, &["name", "value"])
                .first()
                .map(|s| product.resolve(&file.path, s))
            else {
                continue;
            };
            let url = values(client, &["url"])
                .first()
                .map(|u| product.resolve(&file.path, u))
                .filter(|u| !u.is_empty());
            let prefix = values(client, &["path"]).first().cloned().unwrap_or_default();
            for m in &t.methods {
                for (verb, path) in mapping_routes(&m.annotations, std::slice::from_ref(&prefix)) {
                    let target = url
                        .as_deref()
                        .and_then(|u| u.split("://").nth(1))
                        .and_then(|rest| rest.split(['/', ':']).next())
                        .unwrap_or(&service)
                        .to_string();
                    out.push(Finding::HttpCall(HttpCall {
                        caller: MethodKey::of(t, m),
                        caller_name: format!("{}.{}", t.fqn, m.name),
                        url: format!("{}{path}", url.as_deref().unwrap_or("")),
                        verb,
                        path,
                        target,
                        client: "feign",
                        file: file.path.clone(),
                        lines: (m.line_start, m.line_end),
                        test: false,
                        external: false,
                        links: url.is_none(),
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
    fn feign_methods_call_their_service_by_verb_and_route() {
        check(
            r#"
//- /orders/src/main/java/a/InventoryClient.java
package a;
@FeignClient(name = "inventory-service", path = "/api")
interface InventoryClient {
    @GetMapping("/stock/{sku}") Stock stock(@PathVariable String sku);
    @PostMapping("/reservations") void reserve(Reservation r);
    default void notMapped() {}
}
//- /orders/src/main/java/a/Partner.java
package a;
@FeignClient(name = "partner", url = "https://api.partner.example/v1")
interface Partner {
    @GetMapping("/rates") Rates rates();
}
//- /orders/src/main/java/a/NotFeign.java
package a;
interface NotFeign { @GetMapping("/x") void x(); }
"#,
            r#"
http GET inventory-service /api/stock/{sku} feign url=/api/stock/{sku} by a.InventoryClient.stock linked (orders/src/main/java/a/InventoryClient.java:4)
http POST inventory-service /api/reservations feign url=/api/reservations by a.InventoryClient.reserve linked (orders/src/main/java/a/InventoryClient.java:5)
http GET api.partner.example /rates feign url=https://api.partner.example/v1/rates by a.Partner.rates (orders/src/main/java/a/Partner.java:4)
"#,
        );
    }

    #[test]
    fn kotlin_feign_interfaces_call_their_service() {
        check(
            r#"
//- /orders/src/main/kotlin/a/InventoryClient.kt
package a

@FeignClient(name = "inventory-service", path = "/api")
interface InventoryClient {
    @GetMapping("/stock/{sku}")
    fun stock(@PathVariable sku: String): Stock

    @PostMapping(path = ["/reservations"])
    fun reserve(r: Reservation)
}
"#,
            r#"
http GET inventory-service /api/stock/{sku} feign url=/api/stock/{sku} by a.InventoryClient.stock linked (orders/src/main/kotlin/a/InventoryClient.kt:5)
http POST inventory-service /api/reservations feign url=/api/reservations by a.InventoryClient.reserve linked (orders/src/main/kotlin/a/InventoryClient.kt:8)
"#,
        );
    }
}
