//! MyBatis mapper XML: the statements a mapper interface's methods run.
//!
//! A mapper file names its interface (`<mapper namespace="com.acme.StockMapper">`) and holds
//! one `<select|insert|update|delete id="method">` per method. Their bodies are SQL mixed
//! with dynamic tags; this reader keeps what a run could send to the database: `<where>`
//! and `<set>` become their keywords, `<trim prefix>` and `<foreach open/close>` their
//! text, `<include refid>` the `<sql>` fragment it names, every other tag (`<if>`,
//! `<choose>`…) its content, and CDATA and XML entities their text. A file that is no
//! mapper gives `None`; no XML library is needed for this much.

use std::collections::HashMap;

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

/// Reads a MyBatis mapper file; `None` when `text` is no mapper.
pub(crate) fn parse_mapper(text: &str) -> Option<Mapper> {
    let text = strip_comments(text);
    let open = find_tag(&text, "mapper", 0)?;
    let namespace = attr(&text[open.0..open.1], "namespace")?;
    let mut fragments: HashMap<String, String> = HashMap::new();
    let mut at = open.1;
    while let Some((s, e)) = find_tag(&text, "sql", at) {
        let body_end = text[e..].find("</sql>").map_or(text.len(), |p| e + p);
        if let Some(id) = attr(&text[s..e], "id") {
            fragments.insert(id, text[e..body_end].to_string());
        }
        at = body_end;
    }
    let mut statements = Vec::new();
    let mut at = open.1;
    loop {
        let next = ["select", "insert", "update", "delete"]
            .iter()
            .filter_map(|k| find_tag(&text, k, at).map(|p| (p, *k)))
            .min_by_key(|(p, _)| p.0);
        let Some(((s, e), kind)) = next else {
            break;
        };
        let close = format!("</{kind}>");
        let self_closing = text[s..e].ends_with("/>");
        let body_end = if self_closing {
            e
        } else {
            text[e..].find(&close).map_or(text.len(), |p| e + p)
        };
        if let Some(id) = attr(&text[s..e], "id") {
            let line = text[..s].matches('\n').count() as u32 + 1;
            let sql = flatten(&text[e..body_end], &fragments, 0);
            statements.push(MapperStatement {
                id,
                kind: kind.to_string(),
                sql,
                line,
            });
        }
        at = body_end.max(e);
    }
    Some(Mapper {
        namespace,
        statements,
    })
}

/// `text` with `<!-- … -->` comments blanked (newlines kept, so lines still count).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("<!--") {
        out.push_str(&rest[..p]);
        let end = rest[p..].find("-->").map_or(rest.len(), |q| p + q + 3);
        out.extend(rest[p..end].chars().filter(|&c| c == '\n'));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The byte span of the first opening tag `<name …>` at or after `from`.
fn find_tag(text: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    let pat = format!("<{name}");
    let mut at = from;
    while let Some(p) = text.get(at..)?.find(&pat) {
        let s = at + p;
        let after = text.as_bytes().get(s + pat.len()).copied();
        if after.is_some_and(|c| c.is_ascii_whitespace() || c == b'>' || c == b'/') {
            let e = text[s..].find('>').map_or(text.len(), |q| s + q + 1);
            return Some((s, e));
        }
        at = s + pat.len();
    }
    None
}

/// The value of attribute `name` in an opening tag.
fn attr(tag: &str, name: &str) -> Option<String> {
    let mut at = 0;
    while let Some(p) = tag[at..].find(name) {
        let s = at + p;
        let before_ok = tag[..s].ends_with(|c: char| c.is_ascii_whitespace());
        let rest = tag[s + name.len()..].trim_start();
        if before_ok {
            if let Some(rest) = rest.strip_prefix('=') {
                let rest = rest.trim_start();
                let quote = rest.chars().next()?;
                if quote == '"' || quote == '\'' {
                    let end = rest[1..].find(quote)?;
                    return Some(unescape(&rest[1..1 + end]));
                }
            }
        }
        at = s + name.len();
    }
    None
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The SQL of a statement body: tags flattened as the module documentation says.
fn flatten(body: &str, fragments: &HashMap<String, String>, depth: usize) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    // Closing tags that add text (`</foreach>` with `close`), innermost last.
    let mut closers: Vec<String> = Vec::new();
    while let Some(p) = rest.find('<') {
        out.push_str(&unescape(&rest[..p]));
        rest = &rest[p..];
        if let Some(cdata) = rest.strip_prefix("<![CDATA[") {
            let end = cdata.find("]]>").unwrap_or(cdata.len());
            out.push_str(&cdata[..end]);
            rest = cdata.get(end + 3..).unwrap_or("");
            continue;
        }
        let end = rest.find('>').map_or(rest.len(), |q| q + 1);
        let tag = &rest[..end];
        rest = &rest[end..];
        let closing = tag.starts_with("</");
        let name: String = tag
            .trim_start_matches(['<', '/'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        if closing {
            if matches!(name.as_str(), "foreach" | "trim") {
                out.push(' ');
                out.push_str(&closers.pop().unwrap_or_default());
                out.push(' ');
            }
            continue;
        }
        match name.as_str() {
            "where" => out.push_str(" WHERE "),
            "set" => out.push_str(" SET "),
            "trim" => {
                out.push(' ');
                out.push_str(&attr(tag, "prefix").unwrap_or_default());
                out.push(' ');
                closers.push(attr(tag, "suffix").unwrap_or_default());
            }
            "foreach" => {
                out.push(' ');
                out.push_str(&attr(tag, "open").unwrap_or_default());
                out.push(' ');
                closers.push(attr(tag, "close").unwrap_or_default());
            }
            "include" => {
                let refid = attr(tag, "refid").unwrap_or_default();
                let id = refid.rsplit('.').next().unwrap_or("");
                if let Some(fragment) = fragments.get(id).filter(|_| depth < 8) {
                    out.push(' ');
                    out.push_str(&flatten(fragment, fragments, depth + 1));
                    out.push(' ');
                }
            }
            "selectKey" | "bind" => {
                // A key query runs apart from the statement; a binding has no SQL.
                if !tag.ends_with("/>") {
                    let close = format!("</{name}>");
                    rest = rest.find(&close).map_or("", |q| &rest[q + close.len()..]);
                }
            }
            _ => out.push(' '),
        }
    }
    out.push_str(&unescape(rest));
    tidy(&out)
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
            assert!(super::super::sql_touches(&s.sql).parsed, "{}", s.sql);
        }
        assert_eq!(parse_mapper("<beans><bean id=\"x\"/></beans>"), None);
    }
}
