//! A table that code names but no indexed schema defines (the schema is made at run time
//! by `ddl-auto`, or lives elsewhere) is still analysed: `table-analysis` answers from the
//! entity mapped to it and the code that reads or writes it, and says its columns and keys
//! are unknown — where it once said no such table existed — and `impact` lists it among
//! the tables a change writes.

use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_queries::{execute, Caller, Document, Request};
use semgraph_storage::Store;
use semgraph_testkit::write_file as write;

fn ask(store: &Store, table: &str) -> Document {
    let request = Request::new("recipes", "table-analysis", [("table", table)]);
    match execute(&store.snapshot(), &Caller::full_access(), &request) {
        Ok(doc) => doc,
        Err(e) => panic!("table-analysis {table} failed: {}", e.body()),
    }
}

#[test]
fn a_table_only_code_names_is_analysed_from_the_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("clinic");
    write(
        &repo,
        "src/main/resources/application.yml",
        "spring:\n  application:\n    name: pets-service\n  jpa:\n    hibernate:\n      ddl-auto: update\n",
    );
    write(
        &repo,
        "src/main/java/clinic/Pet.java",
        "package clinic;\nimport jakarta.persistence.*;\n@Entity\n@Table(name = \"pets\")\npublic class Pet {\n    @Id Long id;\n    String name;\n}\n",
    );
    write(
        &repo,
        "src/main/java/clinic/PetRepository.java",
        "package clinic;\nimport org.springframework.data.jpa.repository.JpaRepository;\npublic interface PetRepository extends JpaRepository<Pet, Long> {}\n",
    );
    write(
        &repo,
        "src/main/java/clinic/PetService.java",
        r#"package clinic;
import java.util.List;
import org.springframework.stereotype.Service;
@Service
public class PetService {
    private final PetRepository pets;
    public PetService(PetRepository pets) { this.pets = pets; }
    public List<Pet> all() { return pets.findAll(); }
    public Pet add(Pet p) { return pets.save(p); }
}
"#,
    );
    write(
        &repo,
        "src/main/java/clinic/PetController.java",
        r#"package clinic;
import java.util.List;
import org.springframework.web.bind.annotation.*;
@RestController
@RequestMapping("/pets")
public class PetController {
    private final PetService service;
    public PetController(PetService service) { this.service = service; }
    @GetMapping public List<Pet> list() { return service.all(); }
    @PostMapping public Pet create(@RequestBody Pet p) { return service.add(p); }
}
"#,
    );
    let company = Company::from_paths(&[repo], Some(dir.path().join("store"))).expect("company");
    let store = Store::open(dir.path().join("store")).expect("store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }

    let doc = ask(&store, "pets");
    let json = doc.json_value();
    let named = &json["named_in_code"];
    assert_eq!(
        named["entities"],
        serde_json::json!(["clinic.Pet"]),
        "{}",
        doc.markdown
    );
    let usages: Vec<(String, String)> = named["usages"]
        .as_array()
        .expect("usages")
        .iter()
        .map(|u| {
            (
                u["method"]["fqn"].as_str().unwrap_or_default().to_string(),
                u["mode"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(
        usages.contains(&("clinic.PetService.all".into(), "read".into())),
        "{usages:?}"
    );
    assert!(
        usages.contains(&("clinic.PetService.add".into(), "write".into())),
        "{usages:?}"
    );
    let endpoints: Vec<&str> = named["endpoints"]
        .as_array()
        .expect("endpoints")
        .iter()
        .filter_map(|e| e.as_str())
        .collect();
    assert_eq!(
        endpoints,
        vec!["pets-service GET /pets", "pets-service POST /pets"],
        "{}",
        doc.markdown
    );
    assert!(
        doc.markdown.contains("defined by no indexed schema"),
        "{}",
        doc.markdown
    );
    assert!(doc
        .markdown
        .contains("columns, keys, indexes and triggers are unknown"));

    // Impact says the table a change writes though no schema defines it.
    let request = Request::new("recipes", "impact", [("target", "clinic.PetService.add")]);
    let impact = match execute(&store.snapshot(), &Caller::full_access(), &request) {
        Ok(doc) => doc,
        Err(e) => panic!("impact failed: {}", e.body()),
    };
    assert_eq!(
        impact.json_value()["tables_written"],
        serde_json::json!([{"table": "pets", "product": "", "written_by": ["clinic.PetService.add(Pet)"]}]),
        "{}",
        impact.markdown
    );
    assert!(
        impact.markdown.contains("| `pets` | no indexed schema |"),
        "{}",
        impact.markdown
    );

    // A name nothing defines and no code names is still nothing to analyse.
    let none = ask(&store, "owners");
    assert!(none.json_value()["named_in_code"].is_null());
    assert!(none.markdown.contains("Nothing to analyse"), "{}", none.markdown);
}
