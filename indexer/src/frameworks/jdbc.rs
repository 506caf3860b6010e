//! JDBC and the Spring JDBC helpers: the SQL text handed to `JdbcTemplate`,
//! `NamedParameterJdbcTemplate`, `JdbcClient`, R2DBC's `DatabaseClient` and plain JDBC
//! (`Connection.prepareStatement`, `Statement.execute…`), and the table of a
//! `SimpleJdbcInsert`, as reads and writes from the calling method.
//!
//! The SQL is whatever the one value evaluator fixes — a literal, a constant, a local
//! initialised with literals and never assigned again, a `+` of those; anything else (a
//! parameter, a `StringBuilder`) is a data access not determined, said and counted, never
//! a guessed table.

use super::annotations::short;
use super::mockito::in_mock_setup;
use super::values::{eval_fixed, At};
use super::{call_site, Findings, Owner, Product, Recogniser};
use crate::facts::{self, CodeFile, MethodDecl, Receiver, TypeDecl};
use crate::lang::sql::Access;
use crate::resolve::{ResolvedCall, Target};

/// JDBC helpers whose first argument is the SQL: (type simple name, methods, via).
const SQL_CALLS: &[(&str, &[&str], &str)] = &[
    (
        "JdbcTemplate",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "jdbc-template",
    ),
    (
        "JdbcOperations",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "jdbc-template",
    ),
    (
        "NamedParameterJdbcTemplate",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "named-parameter-jdbc",
    ),
    (
        "NamedParameterJdbcOperations",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "named-parameter-jdbc",
    ),
    ("JdbcClient", &["sql"], "jdbc-client"),
    ("DatabaseClient", &["sql"], "r2dbc-database-client"),
    (
        "Connection",
        &["prepareStatement", "prepareCall", "nativeSQL"],
        "jdbc",
    ),
    (
        "Statement",
        &[
            "executeQuery",
            "executeUpdate",
            "executeLargeUpdate",
            "execute",
            "addBatch",
        ],
        "jdbc",
    ),
];

/// `SimpleJdbcInsert` methods that insert a row.
const INSERT_CALLS: &[&str] = &[
    "execute",
    "executeAndReturnKey",
    "executeAndReturnKeyHolder",
    "executeBatch",
];

pub(crate) struct Jdbc;

impl Recogniser for Jdbc {
    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        for call in calls {
            let Target::External { type_fqn, method } = &call.target else {
                continue;
            };
            // A repository's inherited methods are Spring Data's.
            if call.receiver_type.as_deref().is_some_and(|r| {
                product
                    .knowledge
                    .repositories
                    .repository_entity(&product.knowledge.entities, r)
                    .is_some()
            }) {
                continue;
            }
            let owner = short(type_fqn);
            let sql_call = SQL_CALLS
                .iter()
                .find(|(t, ms, _)| *t == owner && ms.contains(&method.as_str()))
                .map(|(_, _, via)| *via);
            let insert_call = owner == "SimpleJdbcInsert" && INSERT_CALLS.contains(&method.as_str());
            if sql_call.is_none() && !insert_call {
                continue;
            }
            let Some((t, m, site)) = call_site(file, call) else {
                continue;
            };
            if site.arg_texts.is_empty() || in_mock_setup(m, site) {
                // `preparedStatement.executeQuery()`: the SQL was given earlier; a stubbed or
                // verified call on a mock touches no table.
                continue;
            }
            let from = Owner::Method(call.caller.clone());
            let line = call.line as u32;
            let at = At::in_method(&product.values, &file.path, t, m, site.byte);
            if insert_call {
                match inserted_table(product, file, t, m, &site.receiver) {
                    Some(table) => out.table(&from, &table, Access::Write, line, "simple-jdbc-insert"),
                    None => out.table_unknown(
                        line,
                        "the table of a SimpleJdbcInsert is not a literal or constant",
                    ),
                }
                continue;
            }
            let Some(text) = site.arg_values.first().and_then(|a| eval_fixed(a, &at)) else {
                out.table_unknown(
                    line,
                    format!(
                        "the SQL of {owner}.{method}(…) is not a literal, constant or concatenation of those"
                    ),
                );
                continue;
            };
            if let Some(via) = sql_call {
                out.sql(&from, &text, line, via);
            }
        }
    }
}

/// The table a `SimpleJdbcInsert` inserts into: `withTableName(…)` in the same method, or,
/// for a field, in the type when it has that one insert field and names one table.
fn inserted_table(
    product: &Product<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    m: &MethodDecl,
    receiver: &Receiver,
) -> Option<String> {
    let tables_in = |m: &MethodDecl| -> Vec<Option<String>> {
        m.calls
            .iter()
            .filter(|c| c.name == "withTableName")
            .map(|c| {
                let at = At::in_method(&product.values, &file.path, t, m, c.byte);
                c.arg_values.first().and_then(|a| eval_fixed(a, &at))
            })
            .collect()
    };
    let own = tables_in(m);
    if let [Some(table)] = own.as_slice() {
        return Some(table.clone());
    }
    if !own.is_empty() {
        return None;
    }
    let field = match receiver {
        Receiver::Name(n) => n,
        Receiver::Field(inner, n) if **inner == Receiver::This => n,
        _ => return None,
    };
    let insert_fields: Vec<&str> = t
        .fields
        .iter()
        .filter(|f| short(&facts::erase(&f.ty)) == "SimpleJdbcInsert")
        .map(|f| f.name.as_str())
        .collect();
    if insert_fields != [field.as_str()] {
        return None;
    }
    let all: Vec<Option<String>> = t.methods.iter().flat_map(tables_in).collect();
    let first = all.first()?.clone()?;
    all.iter()
        .all(|x| x.as_deref() == Some(first.as_str()))
        .then_some(first)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sql_handed_to_jdbc_helpers_reads_and_writes_tables_from_the_caller() {
        crate::frameworks::testing::check(
            r#"
//- /inv/src/main/java/a/StockDao.java
package a;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.SimpleJdbcInsert;
class StockDao {
    private final JdbcTemplate jdbc;
    private final SimpleJdbcInsert insert;
    private static final String TABLE = "stock_items";
    StockDao(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        this.insert = new SimpleJdbcInsert(jdbc).withTableName("stock_movements");
    }
    int count() { return jdbc.queryForObject("SELECT count(*) FROM " + TABLE, Integer.class); }
    void adjust(String sku) { jdbc.update("UPDATE stock_items SET quantity = quantity - 1 WHERE sku = ?", sku); }
    void record() { insert.execute(java.util.Map.of()); }
    void dynamic(String where) { jdbc.query("SELECT * FROM stock_items WHERE " + where, r -> null); }
    void notSql() { jdbc.execute("hello"); }
}
"#,
            r#"
table read stock_items by a.StockDao.count via jdbc-template (line 12)
table write stock_items by a.StockDao.adjust via jdbc-template (line 13)
table write stock_movements by a.StockDao.record via simple-jdbc-insert (line 14)
table? the SQL of JdbcTemplate.query(…) is not a literal, constant or concatenation of those (line 15)
table? a SQL argument is no SQL statement (line 16)
"#,
        );
    }
}
