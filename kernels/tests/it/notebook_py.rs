//! The notebook runtime with real Python: output order, errors, variables.

use crate::support::notebook::Live;
use rho_kernels::notebook::{CellOutcome, Language, Stream};

#[test]
fn output_arrives_in_printed_order_with_its_kind() {
    let mut s = Live::start(Language::Python);
    assert!(
        s.started.program_version.starts_with("Python 3"),
        "{:?}",
        s.started
    );
    let c = s.run(
        "import sys, warnings\nprint('one')\nsys.stderr.write('two\\n')\nwarnings.warn('three')\nprint(4, end='')\n5",
    );
    assert_eq!(c.outcome, CellOutcome::Done);
    let out = c.output();
    let kinds: Vec<Stream> = out.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        vec![
            Stream::Stdout,
            Stream::Stderr,
            Stream::Warning,
            Stream::Stdout
        ],
        "{out:?}"
    );
    assert_eq!(out[0].1, "one\n");
    assert_eq!(out[1].1, "two\n");
    assert!(out[2].1.contains("UserWarning: three"), "{out:?}");
    assert_eq!(out[3].1, "45\n", "the last expression's value is shown");
}

#[test]
fn an_error_ends_the_cell_with_its_traceback_and_the_session_goes_on() {
    let mut s = Live::start(Language::Python);
    let c = s.run("x = 1\nprint('before')\nraise ValueError('boom')\nprint('after')");
    assert_eq!(c.outcome, CellOutcome::Error);
    let out = c.output();
    assert_eq!(out[0], (Stream::Stdout, "before\n".to_string()));
    assert_eq!(out[1].0, Stream::Error);
    assert!(out[1].1.contains("ValueError: boom"), "{out:?}");
    assert!(
        out[1].1.contains("raise ValueError"),
        "the traceback shows the cell's line: {out:?}"
    );
    assert!(!out[1].1.contains("runner.py"), "{out:?}");
    let c = s.run("x + 1");
    assert_eq!(c.text(), "2\n");
    assert_eq!(s.run("def f(:").outcome, CellOutcome::Error);
    assert_eq!(s.run("import sys\nsys.exit(3)").outcome, CellOutcome::Error);
    assert_eq!(
        s.run("x").text(),
        "1\n",
        "sys.exit in a cell does not end the session"
    );
}

#[test]
fn variables_leave_out_modules_and_imported_callables() {
    let mut s = Live::start(Language::Python);
    let c = s.run("import os\nfrom os.path import join\nfrom collections import OrderedDict\na = [1, 2, 3]\nb = 'x'\ndef f(y): return y\nclass K: pass\n_hidden = 1");
    let names: Vec<&str> = c.variables.list.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, vec!["K", "a", "b", "f"]);
    assert_eq!(c.defined, vec!["K", "a", "b", "f"]);
    assert_eq!(c.removed, Some(vec![]));
    let a = &c.variables.list[1];
    assert_eq!(
        (a.type_name.as_str(), a.size.as_str(), a.summary.as_str()),
        ("list", "3", "[1, 2, 3]")
    );
    let c = s.run("a.append(4)\ndel b\nd = 2");
    assert_eq!(c.defined, vec!["a", "d"]);
    assert_eq!(c.removed, Some(vec!["b".to_string()]));
    assert!(s.run("a").defined.is_empty());
}

#[test]
fn listing_two_hundred_values_is_fast() {
    let mut s = Live::start(Language::Python);
    s.run("import random\nfor i in range(200): globals()['v%d' % i] = [random.random() for _ in range(10)]\ndel i");
    let mut best = std::time::Duration::MAX;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let c = s.run("v1 = [random.random()]");
        best = best.min(t.elapsed());
        assert_eq!(c.variables.list.len(), 200);
        assert_eq!(c.defined, vec!["v1"]);
    }
    assert!(
        best.as_millis() < 50,
        "a cell with 200 listed values took {best:?}"
    );
}

#[test]
fn values_changed_in_place_keeping_their_shape_are_defined() {
    let mut s = Live::start(Language::Python);
    s.run("xs = [1, 2, 3]\nd = {'k': 1}\nnested = [[1], [2]]\nb = bytearray(b'abc')\nsame = [1]");
    // Same identity, same length: only the content changed.
    let c = s.run("xs[0] = 9\nd['k'] = 2\nb[0] = 120");
    assert_eq!(c.defined, vec!["b", "d", "xs"]);
    // Nothing changed: nothing defined (the digest is stable).
    assert!(s.run("1").defined.is_empty());
    // An element replaced by another object of the same length.
    assert_eq!(s.run("nested[1] = [5]").defined, vec!["nested"]);
    // numpy and pandas come with the test venv (kernels/tests/setup.sh).
    let c = s.run("import numpy as np, pandas as pd\narr = np.zeros(10**6)\ndf = pd.DataFrame({'a': [1, 2, 3]})");
    assert_eq!(c.defined, vec!["arr", "df"]);
    assert_eq!(
        s.run("df.loc[0, 'a'] = 9\narr[0] = 1").defined,
        vec!["arr", "df"]
    );
    // A change at a large array's end is in the sample (its last quarter).
    assert_eq!(s.run("arr[-1] = 2").defined, vec!["arr"]);
    assert!(s.run("2").defined.is_empty());
}
