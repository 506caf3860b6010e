//! MyBatis: the statements a mapper interface's methods run — `@Select`/`@Insert`/
//! `@Update`/`@Delete` on the interface method, or a mapper XML file
//! (`<mapper namespace="com.acme.StockMapper">` with one `<select|insert|update|delete
//! id="method">` per method) — as reads and writes of the tables their SQL names, from
//! the declared method; a mapper statement's SQL is that method's SQL content.
//!
//! Statement bodies are SQL mixed with dynamic tags; the reader keeps what a run could
//! send to the database: `<where>` and `<set>` become their keywords, `<trim prefix>` and
//! `<foreach open/close>` their text, `<include refid>` the `<sql>` fragment it names,
//! every other tag (`<if>`, `<choose>`…) its content, CDATA and entities their text, as
//! a real XML parser reads them.

use std::collections::HashMap;

use super::annotations::{find, has};
use super::values::annotation_text;
use super::{Finding, Findings, Owner, Product, ProductFindings, Recogniser};
use crate::facts::{CodeFile, TypeKind};
use crate::lang::xml;
use crate::resolve::MethodKey;
use crate::walk::{self, SourceKind};

/// The statement annotations.
const ANNOTATIONS: &[&str] = &["Select", "Insert", "Update", "Delete"];

pub(crate) struct MyBatis;

impl Recogniser for MyBatis {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in file.types.iter().filter(|t| t.kind == TypeKind::Interface) {
            for m in t
                .methods
                .iter()
                .filter(|m| !m.has_body && !has(&m.annotations, "Query"))
            {
                let Some((name, a)) = ANNOTATIONS
                    .iter()
                    .find_map(|n| find(&m.annotations, n).map(|a| (n, a)))
                else {
                    continue;
                };
                let line = m.line_start as u32;
                match annotation_text(&product.values, file, t, a) {
                    Some(text) => out.sql(
                        &Owner::Method(MethodKey::of(t, m)),
                        &text,
                        line,
                        "mybatis-annotation",
                    ),
                    None => out.table_unknown(
                        line,
                        format!("the @{name} text of {} is not a literal or constant", m.name),
                    ),
                }
            }
        }
    }

    fn product(&self, product: &Product<'_>, out: &mut ProductFindings) {
        for f in product
            .files
            .iter()
            .filter(|f| f.kind == SourceKind::Xml && !f.rel.contains("src/test/"))
        {
            let file_out = out.file(&f.rel);
            let Some(text) = walk::read_source(f, &mut file_out.warnings) else {
                continue;
            };
            if !text.contains("<mapper") {
                continue;
            }
            let Some(mapper) = parse_mapper(&text) else {
                continue;
            };
            for s in &mapper.statements {
                let overloads: Vec<MethodKey> = product
                    .type_decl(&mapper.namespace)
                    .map(|t| {
                        t.methods
                            .iter()
                            .filter(|m| m.name == s.id)
                            .map(|m| MethodKey::of(t, m))
                            .collect()
                    })
                    .unwrap_or_default();
                match overloads.as_slice() {
                    [method] => {
                        file_out.push(Finding::MethodSql {
                            method: method.clone(),
                            sql: s.sql.clone(),
                        });
                        file_out.sql(&Owner::Method(method.clone()), &s.sql, s.line, "mybatis-xml");
                    }
                    [] => file_out.table_unknown(
                        s.line,
                        format!("statement {} has no method in {}", s.id, mapper.namespace),
                    ),
                    _ => file_out
                        .table_unknown(s.line, format!("statement {} matches several overloads", s.id)),
                }
            }
            file_out.stat("mybatis.statements", mapper.statements.len() as u64);
        }
    }
}

/// One mapped statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MapperStatement {
    /// The statement id: the interface method's name.
    pub(crate) id: String,
    /// `select`, `insert`, `update` or `delete`.
    pub(crate) kind: String,
    /// The SQL with dynamic tags flattened.
    pub(crate) sql: String,
    /// The 1-based line of the opening tag.
    pub(crate) line: u32,
}

/// A mapper file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mapper {
    /// The interface the statements belong to.
    pub(crate) namespace: String,
    /// Its statements in file order.
    pub(crate) statements: Vec<MapperStatement>,
}

/// Reads a MyBatis mapper file; `None` when `text` is no mapper (or no well-formed XML).
pub(crate) fn parse_mapper(text: &str) -> Option<Mapper> {
    let doc = roxmltree::Document::parse_with_options(text, xml::options()).ok()?;
    let root = doc.root_element();
    if root.tag_name().name() != "mapper" {
        return None;
    }
    let namespace = root.attribute("namespace")?.to_string();
    let fragments: HashMap<&str, roxmltree::Node<'_, '_>> = xml::children(root, "sql")
        .filter_map(|n| Some((n.attribute("id")?, n)))
        .collect();
    let mut statements = Vec::new();
    for n in root.children().filter(|n| n.is_element()) {
        let kind = n.tag_name().name();
        if !matches!(kind, "select" | "insert" | "update" | "delete") {
            continue;
        }
        let Some(id) = n.attribute("id") else {
            continue;
        };
        let mut sql = String::new();
        flatten(n, &fragments, 0, &mut sql);
        statements.push(MapperStatement {
            id: id.to_string(),
            kind: kind.to_string(),
            sql: tidy(&sql),
            line: doc.text_pos_at(n.range().start).row,
        });
    }
    Some(Mapper {
        namespace,
        statements,
    })
}

/// The SQL of a statement body: tags flattened as the module documentation says.
fn flatten(
    node: roxmltree::Node<'_, '_>,
    fragments: &HashMap<&str, roxmltree::Node<'_, '_>>,
    depth: usize,
    out: &mut String,
) {
    if depth > 32 {
        return;
    }
    for c in node.children() {
        if c.is_text() {
            out.push_str(c.text().unwrap_or(""));
            continue;
        }
        if !c.is_element() {
            continue;
        }
        let attr = |name: &str| c.attribute(name).unwrap_or("");
        match c.tag_name().name() {
            "where" => {
                out.push_str(" WHERE ");
                flatten(c, fragments, depth + 1, out);
            }
            "set" => {
                out.push_str(" SET ");
                flatten(c, fragments, depth + 1, out);
            }
            "trim" => {
                out.push_str(&format!(" {} ", attr("prefix")));
                flatten(c, fragments, depth + 1, out);
                out.push_str(&format!(" {} ", attr("suffix")));
            }
            "foreach" => {
                out.push_str(&format!(" {} ", attr("open")));
                flatten(c, fragments, depth + 1, out);
                out.push_str(&format!(" {} ", attr("close")));
            }
            "include" => {
                let id = attr("refid").rsplit('.').next().unwrap_or("");
                if let Some(fragment) = fragments.get(id).filter(|_| depth < 8) {
                    out.push(' ');
                    flatten(*fragment, fragments, depth + 1, out);
                    out.push(' ');
                }
            }
            // A key query runs apart from the statement; a binding has no SQL.
            "selectKey" | "bind" => {}
            _ => {
                out.push(' ');
                flatten(c, fragments, depth + 1, out);
                out.push(' ');
            }
        }
    }
}

/// Whitespace collapsed, and the `AND`/`OR`/comma that dynamic tags leave after `WHERE` or
/// before a clause removed, as MyBatis does at run time.
fn tidy(sql: &str) -> String {
    let words: Vec<&str> = sql.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    for w in words {
        let prev = out.last().map(|p| p.to_ascii_uppercase());
        if (w.eq_ignore_ascii_case("and") || w.eq_ignore_ascii_case("or")) && prev.as_deref() == Some("WHERE")
        {
            continue;
        }
        if w.eq_ignore_ascii_case("where") && out.last().is_some_and(|p| p.ends_with(',')) {
            if let Some(p) = out.pop() {
                out.push(p.trim_end_matches(','));
            }
        }
        out.push(w);
    }
    let mut s = out.join(" ");
    while s.ends_with(',') {
        s.pop();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::testing::check;

    #[test]
    fn mapper_statements_flatten_dynamic_sql() {
        let xml = r#"<?xml version="1.0"?>
<!DOCTYPE mapper PUBLIC "-//mybatis.org//DTD Mapper 3.0//EN" "x.dtd">
<mapper namespace="com.acme.StockMapper">
  <sql id="cols">s.sku, s.quantity</sql>
  <!-- <select id="commented">SELECT 1</select> -->
  <select id="bySku" resultType="map">
    SELECT <include refid="cols"/> FROM stock_items s
    <where>
      <if test="sku != null">AND s.sku = #{sku}</if>
      <if test="ids != null">AND s.id IN
        <foreach collection="ids" item="id" open="(" separator="," close=")">#{id}</foreach>
      </if>
    </where>
  </select>
  <update id="adjust">
    UPDATE stock_items <set><if test="q != null">quantity = #{q},</if></set> WHERE id = #{id} AND quantity &gt;= 0
  </update>
  <insert id="add"><selectKey keyProperty="id" order="BEFORE">SELECT nextval('seq')</selectKey>
    <![CDATA[INSERT INTO stock_movements (delta) VALUES (#{d})]]></insert>
</mapper>"#;
        let m = parse_mapper(xml).expect("a mapper");
        assert_eq!(m.namespace, "com.acme.StockMapper");
        let ids: Vec<&str> = m.statements.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["bySku", "adjust", "add"]);
        assert_eq!(m.statements[0].line, 6);
        assert_eq!(
            m.statements[0].sql,
            "SELECT s.sku, s.quantity FROM stock_items s WHERE s.sku = #{sku} AND s.id IN ( #{id} )"
        );
        assert_eq!(
            m.statements[1].sql,
            "UPDATE stock_items SET quantity = #{q} WHERE id = #{id} AND quantity >= 0"
        );
        assert_eq!(
            m.statements[2].sql,
            "INSERT INTO stock_movements (delta) VALUES (#{d})"
        );
        for s in &m.statements {
            assert!(crate::lang::sql::sql_touches(&s.sql).parsed, "{}", s.sql);
        }
        assert_eq!(parse_mapper("<beans><bean id=\"x\"/></beans>"), None);
        assert_eq!(
            parse_mapper("<mapper namespace=\"x\"><select id=\"a\">"),
            None,
            "not well-formed"
        );
    }

    #[test]
    fn annotations_and_mapper_files_read_and_write_tables_from_the_method() {
        check(
            r#"
//- /inv/src/main/java/a/StockMapper.java
package a;
@Mapper
interface StockMapper {
    @Select("SELECT * FROM stock_items WHERE sku = #{sku}") Stock bySku(String sku);
    void adjust(long id, int q);
    void twice(int a);
    void twice(long a);
}
//- /inv/src/main/resources/mappers/StockMapper.xml
<?xml version="1.0"?>
<!DOCTYPE mapper PUBLIC "-//mybatis.org//DTD Mapper 3.0//EN" "x.dtd">
<mapper namespace="a.StockMapper">
  <update id="adjust">UPDATE stock_items SET quantity = #{q} WHERE id = #{id}</update>
  <select id="twice">SELECT 1 FROM dual</select>
  <delete id="ghost">DELETE FROM ghosts</delete>
</mapper>
"#,
            r#"
table read stock_items by a.StockMapper.bySku via mybatis-annotation (line 4)
sql a.StockMapper.adjust
table write stock_items by a.StockMapper.adjust via mybatis-xml (line 4)
table? statement twice matches several overloads (line 5)
table? statement ghost has no method in a.StockMapper (line 6)
"#,
        );
    }
}
