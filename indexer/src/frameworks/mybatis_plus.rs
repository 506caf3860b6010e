//! MyBatis-Plus: mappers extending `BaseMapper<T>` and services extending `IService<T>` or
//! `ServiceImpl<M, T>` read and write the table of their entity `T` through the CRUD
//! methods they inherit, without a line of SQL in the source.
//!
//! - The entity's table is its `@TableName` (with its `schema`, and the global prefix when
//!   `keepGlobalPrefix`), else MyBatis-Plus's default name: the class name in snake_case
//!   (`UserInfo` → `user_info`, unless `table-underline: false`), upper case with
//!   `capital-mode`, after the `mybatis-plus.global-config.db-config.table-prefix` of the
//!   caller's module.
//! - declared: each entity (a `@TableName` class, or the entity of a mapper or service) is
//!   mapped to its table.
//! - calls, from the calling method: an inherited method (`selectById`, `selectList`,
//!   `selectPage`, `insert`, `updateById`, `deleteById`; `getById`, `list`, `page`, `save`,
//!   `saveBatch`, `removeById`, `lambdaQuery()`, `lambdaUpdate()`…) called on a receiver
//!   typed as a mapper or service of the product, through implicit `this` inside a
//!   `ServiceImpl`, on its `baseMapper`/`getBaseMapper()`, or on a receiver declared
//!   `BaseMapper<User>`/`IService<User>`; the static `Db` toolkit and the chain wrappers
//!   (`ChainWrappers.lambdaQueryChain(mapper)`, `new LambdaUpdateChainWrapper<>(mapper)`)
//!   with the entity their arguments name (`User.class`, a `QueryWrapper<User>`, a mapper).
//!
//! Supertypes count only when they are MyBatis-Plus's (imported from
//! `com.baomidou.mybatisplus`, or MyBatis-Plus-Join's `MPJBaseMapper`…): another library's
//! `IService` or a product class named `ServiceImpl` is no MyBatis-Plus service. A call that
//! only stubs or verifies a mock runs no SQL and is skipped.

use super::by_name::ByName;
use std::collections::HashSet;
use std::sync::OnceLock;

use super::annotations::{arg, find as annotation, short};
use super::jpa::qualify;
use super::mockito::in_mock_setup;
use super::supertypes::{supers_of, SuperRef, TypeArg};
use super::values::At;
use super::{call_site, EntityTable, Finding, Findings, Owner, Product, Recogniser};
use crate::facts::type_args;
use crate::facts::{self, CallKind, CallSite, CodeFile, Receiver, TypeDecl, TypeKind};
use crate::lang::sql::Access;
use crate::resolve::{ResolvedCall, Target};

/// MyBatis-Plus (and MyBatis-Plus-Join) base types and which type argument is the entity.
const BASES: &[(&str, usize)] = &[
    ("BaseMapper", 0),
    ("IService", 0),
    ("IRepository", 0),
    ("ServiceImpl", 1),
    ("CrudRepository", 1),
    ("MPJBaseMapper", 0),
    ("MPJBaseService", 0),
    ("MPJBaseServiceImpl", 1),
];

/// Packages the base types come from.
const PACKAGES: &[&str] = &["com.baomidou.mybatisplus", "com.github.yulichang"];

/// Inherited methods that read the entity's table (mappers, services, `Db`).
const READS: &[&str] = &[
    // BaseMapper
    "selectById",
    "selectBatchIds",
    "selectByIds",
    "selectByMap",
    "selectOne",
    "selectCount",
    "selectList",
    "selectMaps",
    "selectObjs",
    "selectPage",
    "selectMapsPage",
    "exists",
    "selectJoinList",
    "selectJoinOne",
    "selectJoinPage",
    "selectJoinCount",
    // IService
    "getById",
    "getOptById",
    "getOne",
    "getOneOpt",
    "getMap",
    "getObj",
    "listByIds",
    "listByMap",
    "list",
    "listMaps",
    "listObjs",
    "page",
    "pageMaps",
    "count",
    "query",
    "lambdaQuery",
    "ktQuery",
];

/// Inherited methods that write it.
const WRITES: &[&str] = &[
    // BaseMapper
    "insert",
    "insertOrUpdate",
    "deleteById",
    "deleteByIds",
    "deleteBatchIds",
    "deleteByMap",
    "delete",
    "updateById",
    "update",
    // IService
    "save",
    "saveBatch",
    "saveOrUpdate",
    "saveOrUpdateBatch",
    "removeById",
    "removeByIds",
    "removeBatchByIds",
    "removeByMap",
    "remove",
    "updateBatchById",
    "lambdaUpdate",
    "ktUpdate",
];

/// Chain wrappers built on a mapper or an entity class: reads, then writes.
const CHAIN_READS: &[&str] = &[
    "queryChain",
    "lambdaQueryChain",
    "QueryChainWrapper",
    "LambdaQueryChainWrapper",
];
const CHAIN_WRITES: &[&str] = &[
    "updateChain",
    "lambdaUpdateChain",
    "UpdateChainWrapper",
    "LambdaUpdateChainWrapper",
];

/// Wrapper types whose type argument (or `X.class` argument) names an entity.
const WRAPPERS: &[&str] = &[
    "QueryWrapper",
    "LambdaQueryWrapper",
    "UpdateWrapper",
    "LambdaUpdateWrapper",
    "MPJLambdaWrapper",
];

fn access_of(method: &str) -> Option<Access> {
    if WRITES.contains(&method) {
        Some(Access::Write)
    } else if READS.contains(&method) {
        Some(Access::Read)
    } else {
        None
    }
}

/// Types of the product whose supertypes may lead to MyBatis-Plus's bases.
#[derive(Debug, Default, Clone)]
pub(crate) struct Mappers {
    types: ByName<Vec<SuperRef>>,
    /// Whether any type gathered names one of MyBatis-Plus's bases as a supertype. Without
    /// one no type is a mapper or service, and nothing needs walking (most products).
    any_base: bool,
    /// The entity of every mapper and service, computed on first use.
    entities: OnceLock<HashSet<String>>,
}

impl Mappers {
    /// Forgets what was gathered of type `fqn` (before gathering another copy of it); the
    /// entities computed so far are computed again.
    pub(crate) fn forget(&mut self, fqn: &str) {
        self.types.remove(fqn);
        self.entities = OnceLock::new();
    }

    /// Gathers the supertypes of the types `file` declares.
    pub(crate) fn collect(&mut self, file: &CodeFile) {
        for t in &file.types {
            if !matches!(t.kind, TypeKind::Interface | TypeKind::Class) {
                continue;
            }
            let supers = supers_of(file, t, t.extends.iter().chain(&t.implements), PACKAGES);
            if !supers.is_empty() {
                self.any_base |= supers.iter().any(is_base);
                self.types.insert(t.fqn.clone(), supers);
            }
        }
    }

    fn entity_arg(&self, fqn: &str, depth: usize) -> Option<TypeArg> {
        if depth > 16 || !self.any_base {
            return None;
        }
        for s in self.types.get(fqn)? {
            if s.framework {
                if let Some((_, i)) = BASES.iter().find(|(b, _)| *b == s.simple) {
                    match s.args.get(*i) {
                        Some(a) => return Some(a.clone()),
                        None => continue,
                    }
                }
            }
            if s.qualified != fqn && self.types.contains_key(&s.qualified) {
                match self.entity_arg(&s.qualified, depth + 1) {
                    Some(TypeArg::Concrete(c)) => return Some(TypeArg::Concrete(c)),
                    Some(TypeArg::Param(i)) => match s.args.get(i) {
                        Some(a) => return Some(a.clone()),
                        None => continue,
                    },
                    None => continue,
                }
            }
        }
        None
    }

    /// The entity fqn of a MyBatis-Plus mapper or service of the product.
    pub(crate) fn entity(&self, fqn: &str) -> Option<String> {
        match self.entity_arg(fqn, 0)? {
            TypeArg::Concrete(c) => Some(c),
            TypeArg::Param(_) => None,
        }
    }

    /// Whether `fqn` is a mapper or service whatever its entity (a generic base).
    fn is_mapper_or_service(&self, fqn: &str) -> bool {
        self.entity_arg(fqn, 0).is_some()
    }

    /// Every entity of a mapper or service of the product.
    fn entities_of(&self) -> &HashSet<String> {
        self.entities.get_or_init(|| {
            if !self.any_base {
                return HashSet::new();
            }
            self.types
                .keys()
                .filter_map(|t| match self.entity_arg(t, 0) {
                    Some(TypeArg::Concrete(c)) => Some(c),
                    _ => None,
                })
                .collect()
        })
    }
}

/// Whether `s` is one of MyBatis-Plus's bases (`BaseMapper`, `IService`, …).
fn is_base(s: &SuperRef) -> bool {
    s.framework && BASES.iter().any(|(b, _)| *b == s.simple)
}

/// `UserInfo` → `user_info`, as MyBatis-Plus's `camelToUnderline` does it (every upper-case
/// letter after the first starts a word).
fn camel_to_underline(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// The global table settings of the module of `file`.
struct DbConfig {
    prefix: String,
    underline: bool,
    capital: bool,
}

impl DbConfig {
    fn of(product: &Product<'_>, file: &str) -> DbConfig {
        let setting = |keys: &[&str]| {
            keys.iter()
                .map(|k| product.resolve(file, &format!("${{mybatis-plus.global-config.db-config.{k}:}}")))
                .find(|v| !v.is_empty() && !v.contains("${"))
        };
        DbConfig {
            prefix: setting(&["table-prefix", "tablePrefix"]).unwrap_or_default(),
            underline: setting(&["table-underline", "tableUnderline"]).is_none_or(|v| v != "false"),
            capital: setting(&["capital-mode", "capitalMode"]).is_some_and(|v| v == "true"),
        }
    }
}

/// The table of entity `fqn` for code in `file`, or why it is not known.
fn table_of(product: &Product<'_>, fqn: &str, file: &str) -> Result<String, String> {
    let Some(t) = product.type_decl(fqn) else {
        return Err(format!(
            "the MyBatis-Plus entity {fqn} is not a type of the product"
        ));
    };
    let config = DbConfig::of(product, file);
    if let Some(a) = annotation(&t.annotations, "TableName") {
        let name = arg(a, "value").and_then(|v| v.first()).filter(|v| !v.is_empty());
        if let Some(name) = name {
            if name.contains("${") {
                return Err(format!("the @TableName of {} is a placeholder", t.name));
            }
            let keep_prefix =
                arg(a, "keepGlobalPrefix").is_some_and(|v| v.first().is_some_and(|v| v == "true"));
            let name = if keep_prefix {
                format!("{}{name}", config.prefix)
            } else {
                name.clone()
            };
            return Ok(
                match arg(a, "schema").and_then(|s| s.first()).filter(|s| !s.is_empty()) {
                    Some(schema) => format!("{schema}.{name}"),
                    None => name,
                },
            );
        }
    }
    let base = if config.underline {
        camel_to_underline(&t.name)
    } else {
        t.name.clone()
    };
    let base = if config.capital { base.to_uppercase() } else { base };
    Ok(format!("{}{base}", config.prefix))
}

/// The entity a written type names when it is `BaseMapper<User>`, `IService<User>`, a
/// wrapper of `User`, or a mapper or service of the product.
fn entity_of_type(product: &Product<'_>, file: &CodeFile, written: &str) -> Option<String> {
    let simple = facts::simple_name(written);
    let framework_generic = BASES.iter().any(|(b, _)| *b == simple) || WRAPPERS.contains(&simple.as_str());
    if framework_generic {
        let args = type_args(written);
        let i = BASES.iter().find(|(b, _)| *b == simple).map_or(0, |(_, i)| *i);
        let e = args.get(i)?;
        return Some(qualify(file, e));
    }
    let fqn = qualify(file, written);
    product.knowledge.mappers.entity(&fqn)
}

/// The entity an argument names: `User.class`, `new QueryWrapper<User>()`,
/// `Wrappers.<User>lambdaQuery()`, `Wrappers.lambdaQuery(User.class)`, or a variable typed
/// as a wrapper, mapper or entity.
fn entity_of_arg(product: &Product<'_>, file: &CodeFile, at: &At<'_>, text: &str) -> Option<String> {
    let text = text.trim();
    if let Some(class) = text.strip_suffix(".class") {
        if class.chars().all(|c| c.is_alphanumeric() || c == '.' || c == '_') {
            return Some(qualify(file, class));
        }
    }
    // A type argument written in the expression: `<User>` of a wrapper or of `Wrappers.`.
    if WRAPPERS.iter().any(|w| text.contains(w)) || text.starts_with("Wrappers.") {
        if let (Some(open), Some(close)) = (text.find('<'), text.find('>')) {
            let inner = text[open + 1..close].trim();
            if !inner.is_empty() && inner.chars().all(|c| c.is_alphanumeric() || c == '.' || c == '_') {
                return Some(qualify(file, inner));
            }
        }
        if let (Some(open), Some(end)) = (text.find('('), text.find(".class")) {
            if open < end {
                return Some(qualify(file, text[open + 1..end].trim()));
            }
        }
        return None;
    }
    if text.chars().all(|c| c.is_alphanumeric() || c == '_') {
        let ty = at.declared_type(text)?;
        if let Some(e) = entity_of_type(product, file, &ty) {
            return Some(e);
        }
        let fqn = qualify(file, &ty);
        let named = product
            .type_decl(&fqn)
            .is_some_and(|t| annotation(&t.annotations, "TableName").is_some());
        return (named || product.knowledge.mappers.entities_of().contains(&fqn)).then_some(fqn);
    }
    None
}

pub(crate) struct MyBatisPlus;

impl Recogniser for MyBatisPlus {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        let mappers = &product.knowledge.mappers;
        for t in file.types.iter().filter(|t| t.kind == TypeKind::Class) {
            let named = annotation(&t.annotations, "TableName").is_some();
            if !named && !mappers.entities_of().contains(&t.fqn) {
                continue;
            }
            // JPA's mapping of the same class, when it has one, is JPA's to say.
            if product.knowledge.entities.table_of(&t.fqn).is_some() {
                continue;
            }
            match table_of(product, &t.fqn, &file.path) {
                Ok(table) => out.push(Finding::EntityTable(EntityTable {
                    entity: t.fqn.clone(),
                    table,
                    line: t.line_start as u32,
                })),
                Err(why) => out.table_unknown(t.line_start as u32, why),
            }
        }
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        let mappers = &product.knowledge.mappers;
        let mut seen: HashSet<(&crate::resolve::MethodKey, usize)> = HashSet::new();
        // Inherited methods on a receiver typed as a mapper or service of the product (or
        // implicit `this` in one).
        for call in calls {
            let Target::External { method, .. } = &call.target else {
                continue;
            };
            let Some(receiver) = call.receiver_type.as_deref() else {
                continue;
            };
            if !mappers.is_mapper_or_service(receiver) {
                continue;
            }
            let Some(access) = access_of(method) else {
                continue;
            };
            let Some((t, m, site)) = call_site(file, call) else {
                continue;
            };
            if in_mock_setup(m, site) {
                continue;
            }
            seen.insert((&call.caller, call.site));
            let entity = mappers.entity(receiver);
            touch(product, file, t, m, site, entity, access, out);
        }
        // What the syntax tells: `baseMapper`, generic receivers, `Db`, chain wrappers.
        for t in &file.types {
            let own_entity = mappers.entity(&t.fqn);
            for m in &t.methods {
                // Spelled only where a call was already found above: in most files none was.
                let key = (!seen.is_empty()).then(|| crate::resolve::MethodKey::of(t, m));
                for (index, site) in m.calls.iter().enumerate() {
                    if key.as_ref().is_some_and(|key| seen.contains(&(key, index))) {
                        continue;
                    }
                    if let Some((entity, access)) =
                        syntactic(product, file, t, m, site, own_entity.as_deref())
                    {
                        if in_mock_setup(m, site) {
                            continue;
                        }
                        touch(product, file, t, m, site, entity, access, out);
                    }
                }
            }
        }
    }
}

/// The entity and access of a call the facts alone show as MyBatis-Plus's.
fn syntactic(
    product: &Product<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    m: &facts::MethodDecl,
    site: &CallSite,
    own_entity: Option<&str>,
) -> Option<(Option<String>, Access)> {
    let at = At::in_method(&product.values, &file.path, t, m, site.byte);
    if site.kind == CallKind::Constructor {
        let simple = facts::simple_name(&site.name);
        let access = if CHAIN_READS.contains(&simple.as_str()) {
            Access::Read
        } else if CHAIN_WRITES.contains(&simple.as_str()) {
            Access::Write
        } else {
            return None;
        };
        let entity = site
            .arg_texts
            .first()
            .and_then(|a| entity_of_arg(product, file, &at, a));
        return Some((entity, access));
    }
    if site.kind != CallKind::Method {
        return None;
    }
    match &site.receiver {
        // `Db.save(user)`, `Db.list(Wrappers.lambdaQuery(User.class))`.
        Receiver::Name(n) if n == "Db" && imports(file, "Db") => {
            let access = access_of(&site.name)?;
            let entity = site
                .arg_texts
                .iter()
                .find_map(|a| entity_of_arg(product, file, &at, a));
            Some((entity, access))
        }
        // `ChainWrappers.lambdaQueryChain(userMapper)`.
        Receiver::Name(n) if n == "ChainWrappers" && imports(file, "ChainWrappers") => {
            let access = if CHAIN_READS.contains(&site.name.as_str()) {
                Access::Read
            } else if CHAIN_WRITES.contains(&site.name.as_str()) {
                Access::Write
            } else {
                return None;
            };
            let entity = site
                .arg_texts
                .first()
                .and_then(|a| entity_of_arg(product, file, &at, a));
            Some((entity, access))
        }
        // `baseMapper.selectList(…)` and `getBaseMapper().insert(…)` in a service.
        Receiver::Name(n) if n == "baseMapper" && own_entity.is_some() && at.declared_type(n).is_none() => {
            Some((own_entity.map(str::to_string), access_of(&site.name)?))
        }
        Receiver::Field(o, n)
            if **o == Receiver::This
                && n == "baseMapper"
                && own_entity.is_some()
                && at.field_type(n).is_none() =>
        {
            Some((own_entity.map(str::to_string), access_of(&site.name)?))
        }
        Receiver::Call(inner)
            if inner.name == "getBaseMapper" && inner.arg_count == 0 && own_entity.is_some() =>
        {
            Some((own_entity.map(str::to_string), access_of(&site.name)?))
        }
        // A receiver declared `BaseMapper<User>` or `IService<User>` (no product type).
        Receiver::Name(n) => {
            let ty = at.declared_type(n)?;
            let simple = facts::simple_name(&ty);
            if !BASES.iter().any(|(b, _)| *b == simple) || !imports(file, &simple) {
                return None;
            }
            let access = access_of(&site.name)?;
            Some((entity_of_type(product, file, &ty), access))
        }
        _ => None,
    }
}

/// Whether `file` imports MyBatis-Plus's type `simple` (singly or by wildcard).
fn imports(file: &CodeFile, simple: &str) -> bool {
    file.imports.iter().any(|i| {
        !i.is_static
            && PACKAGES.iter().any(|p| i.path.starts_with(p))
            && (i.wildcard || short(&i.path) == simple)
    })
}

/// One table use of the calling method, or why its table is not known.
#[allow(clippy::too_many_arguments)]
fn touch(
    product: &Product<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    m: &facts::MethodDecl,
    site: &CallSite,
    entity: Option<String>,
    access: Access,
    out: &mut Findings,
) {
    let line = site.line as u32;
    let Some(entity) = entity else {
        out.table_unknown(
            line,
            format!("the entity of MyBatis-Plus call {}(…) is not known", site.name),
        );
        return;
    };
    match table_of(product, &entity, &file.path) {
        Ok(table) => {
            let owner = Owner::Method(crate::resolve::MethodKey::of(t, m));
            out.table(&owner, &table, access, line, "mybatis-plus");
        }
        Err(why) => out.table_unknown(line, why),
    }
}

#[cfg(test)]
mod tests {
    use super::camel_to_underline;
    use crate::frameworks::testing::check;

    #[test]
    fn default_table_names_follow_mybatis_plus() {
        assert_eq!(camel_to_underline("UserInfo"), "user_info");
        assert_eq!(camel_to_underline("Order"), "order");
        assert_eq!(camel_to_underline("HTTPLog"), "h_t_t_p_log");
    }

    #[test]
    fn mappers_and_services_read_and_write_their_entity_table() {
        check(
            r#"
//- /users/src/main/resources/application.yml
mybatis-plus:
  global-config:
    db-config:
      table-prefix: t_
//- /users/src/main/java/a/AuditLog.java
package a;
import com.baomidou.mybatisplus.annotation.TableName;
@TableName(value = "audit_log", keepGlobalPrefix = true)
public class AuditLog {}
//- /users/src/main/java/a/Jobs.java
package a;
import com.baomidou.mybatisplus.extension.toolkit.Db;
import com.baomidou.mybatisplus.core.toolkit.Wrappers;
class Jobs {
    void record(AuditLog log) { Db.save(log); }
    long items() { return Db.list(Wrappers.lambdaQuery(OrderItem.class)).size(); }
}
//- /users/src/main/java/a/Legacy.java
package a;
interface Legacy extends com.other.orm.IService<User> {}
//- /users/src/main/java/a/OrderItem.java
package a;
public class OrderItem {}
//- /users/src/main/java/a/OrderItemMapper.java
package a;
interface OrderItemMapper extends SuperMapper<OrderItem> {}
//- /users/src/main/java/a/SuperMapper.java
package a;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
interface SuperMapper<T> extends BaseMapper<T> {}
//- /users/src/main/java/a/User.java
package a;
import com.baomidou.mybatisplus.annotation.TableName;
@TableName("sys_user")
public class User {}
//- /users/src/main/java/a/UserController.java
package a;
import java.util.Map;
class UserController {
    private final UserService users;
    private final UserMapper mapper;
    private final OrderItemMapper items;
    private final Legacy legacy;
    private final Map<String, User> cache;
    List<User> all() { return users.list(); }
    void importAll(List<User> batch) { users.saveBatch(batch); }
    void drop(long id) { mapper.deleteById(id); cache.remove("x"); }
    Object page(Page p) { return items.selectPage(p, null); }
    List<User> active() { return users.lambdaQuery().eq(User::getActive, true).list(); }
    List<User> old() { return legacy.list(); }
}
//- /users/src/main/java/a/UserMapper.java
package a;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
public interface UserMapper extends BaseMapper<User> {}
//- /users/src/main/java/a/UserService.java
package a;
import com.baomidou.mybatisplus.extension.service.IService;
public interface UserService extends IService<User> {}
//- /users/src/main/java/a/UserServiceImpl.java
package a;
import com.baomidou.mybatisplus.core.conditions.query.QueryWrapper;
import com.baomidou.mybatisplus.extension.service.impl.ServiceImpl;
class UserServiceImpl extends ServiceImpl<UserMapper, User> implements UserService {
    User find(long id) { return getById(id); }
    void rename(long id) { lambdaUpdate().set(User::getName, "x").eq(User::getId, id).update(); }
    List<User> admins() { return baseMapper.selectList(new QueryWrapper<User>().eq("role", "admin")); }
}
//- /users/src/test/java/a/UserServiceTest.java
package a;
import static org.mockito.Mockito.*;
class UserServiceTest {
    UserMapper mapper;
    void stubs() { when(mapper.selectById(1L)).thenReturn(null); verify(mapper).insert(null); }
}
"#,
            r#"
maps a.AuditLog -> t_audit_log
table write t_audit_log by a.Jobs.record via mybatis-plus (line 5)
table read t_order_item by a.Jobs.items via mybatis-plus (line 6)
maps a.OrderItem -> t_order_item
maps a.User -> sys_user
table read sys_user by a.UserController.all via mybatis-plus (line 9)
table write sys_user by a.UserController.importAll via mybatis-plus (line 10)
table write sys_user by a.UserController.drop via mybatis-plus (line 11)
table read t_order_item by a.UserController.page via mybatis-plus (line 12)
table read sys_user by a.UserController.active via mybatis-plus (line 13)
table read sys_user by a.UserServiceImpl.find via mybatis-plus (line 5)
table write sys_user by a.UserServiceImpl.rename via mybatis-plus (line 6)
table read sys_user by a.UserServiceImpl.admins via mybatis-plus (line 7)
"#,
        );
    }
}
