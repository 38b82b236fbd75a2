use super::*;

#[test]
fn rust_go_java_and_php_are_coloured_and_escaped() {
    let highlighter = Highlighter::new();
    let rust = highlighter
        .html("rust", "fn main() { let x = \"<b>\"; }\n")
        .unwrap();
    assert!(rust.starts_with("<pre"), "{rust}");
    assert!(rust.contains("<span style=\"color:#"), "{rust}");
    assert!(
        rust.contains("&lt;b&gt;") && !rust.contains("<b>"),
        "{rust}"
    );
    let go = highlighter.html("go", "func main() {}\n").unwrap();
    assert!(go.contains("<span style=\"color:#"), "{go}");
    let java = highlighter
        .html("java", "public Mono<String> home() { return x; }\n")
        .unwrap();
    assert!(java.contains("font-weight:bold"), "a keyword: {java}");
    let php = highlighter
        .html("php", "$title = 'x'; // c\nreturn view('post');\n")
        .unwrap();
    assert!(php.contains("font-weight:bold"), "a keyword: {php}");
    assert_eq!(highlighter.html("sh", "ls"), None);
}

#[test]
fn a_report_without_an_idioms_page_says_how_to_make_one() {
    let root = std::env::temp_dir().join("blogbench-no-idioms-here");
    let section = report_section(Path::new("/tmp"), &root);
    assert!(section.contains("`make idioms`"), "{section}");
}

/// A page with a Rust app and a Python app: the Python excerpt is fenced and coloured as
/// Python, its binary and rebuild say why there are none, and its install is shown with
/// the folder it filled, in place of a cold compile.
#[test]
fn an_interpreted_app_shows_its_code_and_its_install_beside_a_compiled_one() {
    use crate::results::idioms::{
        AppIdioms, ConcernCode, Install, InstalledFolder, Language, NO_INSTALL, Packages,
    };
    let app = |name: &str, language: Language, code: &str| AppIdioms {
        name: name.to_owned(),
        language,
        stack: String::new(),
        dir: format!("apps/{name}"),
        code_of: None,
        concerns: Concern::ALL
            .into_iter()
            .map(|concern| ConcernCode {
                concern,
                excerpts: vec![Excerpt {
                    file: format!("apps/{name}/src"),
                    first_line: 1,
                    last_line: 1,
                    code: code.to_owned(),
                }],
            })
            .collect(),
        code_size: Measurement::not_measured("r"),
        packages: Measurement::not_measured("r"),
        binary: Measurement::not_measured("r"),
        rebuild: Measurement::not_measured("r"),
        cold_compile: Measurement::not_measured("r"),
        install: Measurement::not_measured(NO_INSTALL),
        start_up: Measurement::not_measured("r"),
    };
    let mut python = app("fastapi", Language::Python, "def post():\n    return None");
    python.binary = Measurement::not_measured(crate::idioms::build_cost::NO_BINARY);
    python.packages = Measurement::Measured(Packages {
        packages: Vec::new(),
        dev_only: Some(3),
    });
    python.install = Measurement::Measured(Install {
        command: "sh -c python3 -m venv .venv".to_owned(),
        emptied: Some(".venv".to_owned()),
        secs: 12.25,
        installed: Some(InstalledFolder {
            folder: ".venv".to_owned(),
            bytes: 3 * 1024 * 1024,
            files: 1234,
        }),
    });
    let idioms = Idioms {
        header: crate::results::RunHeader {
            kind: Some(crate::results::RunKind::Idioms),
            id: "1".to_owned(),
            started_at: String::new(),
            finished_at: None,
            command: String::new(),
            git_commit: String::new(),
            machine: crate::results::Machine {
                hostname: String::new(),
                kernel: String::new(),
                cpu_model: String::new(),
                cores: 1,
                memory_gib: 1.0,
            },
        },
        tools: Default::default(),
        profile: "ci".to_owned(),
        quick: true,
        workspace_link: "../..".to_owned(),
        starts: 3,
        rebuilds: 0,
        idle_after_secs: 1.0,
        env: Default::default(),
        cold_build: Measurement::not_measured("r"),
        apps: vec![app("axum", Language::Rust, "fn post() {}"), python],
    };
    // Table cells are padded: one space between words.
    let page = markdown(&idioms)
        .split(' ')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(page.contains("```python\ndef post():"), "{page}");
    assert!(page.contains("```rust\nfn post() {}"), "{page}");
    assert!(page.contains("no binary; .venv installed: 3.0"), "{page}");
    assert!(page.contains("(+ 3 dev-only)"), "{page}");
    let install = page
        .lines()
        .find(|l| l.starts_with("| fastapi | sh -c"))
        .unwrap_or_else(|| panic!("no install row: {page}"));
    assert!(
        install.ends_with("| .venv | .venv | 12.2 | 3.0 | 1,234 |"),
        "{install}"
    );
    assert!(
        !page.contains("| axum | sh"),
        "a compiled app has no install row"
    );
    assert!(page.contains("not download time"), "{page}");

    let highlighter = Highlighter::new();
    for (language, code) in [
        ("python", "def f():\n    pass\n"),
        ("javascript", "const x = 1\n"),
    ] {
        let html = highlighter.html(language, code).unwrap();
        assert!(html.contains("<span style=\"color:#"), "{language}: {html}");
    }
}
