//! The notebook runtime with real R: output order, errors, variables, plots, interrupt.

use crate::support::notebook::Live;
use rho_kernels::notebook::{CellOutcome, Language, Stream};

#[test]
fn output_arrives_in_printed_order_with_its_kind() {
    let mut s = Live::start(Language::R);
    assert!(
        s.started.program_version.starts_with("R "),
        "{:?}",
        s.started
    );
    let c = s.run("cat('one\\n'); message('two'); warning('three'); print(4); cat('five')");
    assert_eq!(c.outcome, CellOutcome::Done);
    let out = c.output();
    let kinds: Vec<Stream> = out.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        vec![
            Stream::Stdout,
            Stream::Message,
            Stream::Warning,
            Stream::Stdout
        ],
        "{out:?}"
    );
    assert_eq!(out[0].1, "one\n");
    assert_eq!(out[1].1, "two\n");
    assert!(out[2].1.contains("three"), "{out:?}");
    assert_eq!(out[3].1, "[1] 4\nfive");
}

#[test]
fn shown_values_keep_their_place_among_printed_text_and_messages() {
    let mut s = Live::start(Language::R);
    // A shown value leaves with the frames after it (one write); nothing moves.
    let c = s.run("print.loud <- function(x, ...) { cat('head\\n'); message('mid'); cat('tail\\n') }\n1\ncat('a\\n')\nstructure(1, class = 'loud')\n2");
    assert_eq!(c.outcome, CellOutcome::Done);
    let out = c.output();
    let kinds: Vec<Stream> = out.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        vec![Stream::Stdout, Stream::Message, Stream::Stdout],
        "{out:?}"
    );
    assert_eq!(out[0].1, "[1] 1\na\nhead\n");
    assert_eq!(out[1].1, "mid\n");
    assert_eq!(out[2].1, "tail\n[1] 2\n");
    // A sink of the cell's own still takes what the cell shows.
    let c = s.run("tc <- textConnection('kept', 'w'); sink(tc); 3; sink(); close(tc); kept");
    assert_eq!(c.output()[0].1, "[1] \"[1] 3\"\n", "{:?}", c.output());
}

#[test]
fn an_error_ends_the_cell_and_the_session_goes_on() {
    let mut s = Live::start(Language::R);
    let c = s.run("x <- 1\ncat('before\\n')\nstop('boom')\ncat('after\\n')");
    assert_eq!(c.outcome, CellOutcome::Error);
    let out = c.output();
    assert_eq!(out[0], (Stream::Stdout, "before\n".to_string()));
    assert_eq!(out[1].0, Stream::Error);
    assert!(out[1].1.contains("boom"), "{out:?}");
    assert!(!c.text().contains("after"));
    let c = s.run("x + 1");
    assert_eq!(c.outcome, CellOutcome::Done);
    assert_eq!(c.text(), "[1] 2\n");
    let c = s.run("f(");
    assert_eq!(c.outcome, CellOutcome::Error, "a parse error is an error");
}

#[test]
fn variables_defined_and_removed() {
    let mut s = Live::start(Language::R);
    let c = s.run("a <- 1:10; b <- 'x'; df <- data.frame(u = 1:3, v = c('p','q','r'))");
    let names: Vec<&str> = c.variables.list.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b", "df"]);
    assert_eq!(c.defined, vec!["a", "b", "df"]);
    assert_eq!(c.removed, Some(vec![]));
    let df = &c.variables.list[2];
    assert_eq!(
        (df.type_name.as_str(), df.size.as_str()),
        ("data.frame", "3 x 2")
    );
    assert!(df.summary.contains("3 obs. of 2 variables"), "{df:?}");
    let c = s.run("a[2] <- 5L; rm(b); d <- 2; df");
    assert_eq!(c.defined, vec!["a", "d"]);
    assert_eq!(c.removed, Some(vec!["b".to_string()]));
    let c = s.run("invisible(a)");
    assert!(c.defined.is_empty(), "{:?}", c.defined);
    let c = s.run("a <- letters");
    let a = &c.variables.list[0];
    assert_eq!(
        (a.type_name.as_str(), a.size.as_str()),
        ("character", "26"),
        "a changed value is described again"
    );
    assert!(a.summary.starts_with("a b c d e f ..."), "{a:?}");
}

#[test]
fn a_cut_listing_counts_the_rest_and_names_no_removed() {
    let limits = rho_kernels::notebook::RuntimeLimits {
        max_variables: 5,
        ..Default::default()
    };
    let mut s = Live::start_with(Language::R, limits);
    let c = s.run("for (i in 1:8) assign(paste0('v', i), i); rm(i)");
    assert_eq!(c.variables.list.len(), 5);
    assert_eq!(c.variables.omitted, 3);
    assert_eq!(c.defined.len(), 8);
    assert_eq!(c.removed, None);
}

#[test]
fn listing_two_hundred_values_is_fast() {
    let mut s = Live::start(Language::R);
    s.run("for (i in 1:200) assign(paste0('v', i), runif(10)); rm(i)");
    // The cell's own work is nothing: its round trip bounds the listing's cost. R compiles the
    // runner's functions on their first calls, so a few cells warm it up; the best of five
    // round trips is what a loaded machine lets through.
    for _ in 0..3 {
        s.run("v2[1] <- 0");
    }
    let mut best = std::time::Duration::MAX;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let c = s.run("v1[1] <- runif(1)");
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
fn output_past_max_output_bytes_is_counted_not_kept() {
    let limits = rho_kernels::notebook::RuntimeLimits {
        max_output_bytes: 1000,
        ..Default::default()
    };
    let mut s = Live::start_with(Language::R, limits);
    let c = s.run("for (i in 1:100) cat(strrep('x', 99), '\\n', sep = '')");
    assert_eq!(c.text().len(), 1000);
    let cut: Vec<u64> = c
        .events
        .iter()
        .filter_map(|e| match e {
            rho_kernels::notebook::SessionEvent::OutputCut { omitted_bytes, .. } => {
                Some(*omitted_bytes)
            }
            _ => None,
        })
        .collect();
    assert_eq!(cut, vec![9000]);
    let c = s.run("cat('next\\n')");
    assert_eq!(
        c.text(),
        "next\n",
        "the next cell starts with its own budget"
    );
}

#[test]
fn framed_text_keeps_every_character() {
    let mut s = Live::start(Language::R);
    let c = s.run("message('tab\\there \\u00e9\\u20ac \"q\" \\\\a ', intToUtf8(1), ' end')");
    assert_eq!(
        c.output(),
        vec![(
            Stream::Message,
            "tab\there \u{e9}\u{20ac} \"q\" \\a \u{1} end\n".to_string()
        )]
    );
}

#[test]
fn a_sink_or_capture_output_in_a_cell_keeps_the_answers() {
    let mut s = Live::start(Language::R);
    let c = s.run("x <- capture.output(message('m'), print(1))\nx");
    assert_eq!(c.outcome, CellOutcome::Done);
    assert_eq!(
        c.output(),
        vec![
            (Stream::Message, "m\n".to_string()),
            (Stream::Stdout, "[1] \"[1] 1\"\n".to_string())
        ]
    );
    let c = s.run(
        "f <- tempfile(); sink(f); print(2); warning('w'); sink(); cat(readLines(f), sep = '\\n')",
    );
    assert_eq!(c.outcome, CellOutcome::Done);
    assert_eq!(c.output()[0].0, Stream::Warning);
    assert_eq!(c.output()[1], (Stream::Stdout, "[1] 2\n".to_string()));
}

#[test]
fn many_kinds_of_values_are_described_by_type_size_and_one_line() {
    let mut s = Live::start(Language::R);
    let c = s.run(concat!(
        "a <- c(1.23456, NA, 3)\nb <- 1:10\nch <- c('x', NA, '')\nl <- c(TRUE, FALSE)\n",
        "m <- matrix(1:4, 2)\ne <- numeric(0)\nlong <- strrep('y', 150)\nf <- factor(c('u', 'v'))\n",
        "n <- c(p = 1, q = 2)"
    ));
    let d: Vec<(&str, &str, &str, &str)> = c
        .variables
        .list
        .iter()
        .map(|v| {
            (
                v.name.as_str(),
                v.type_name.as_str(),
                v.size.as_str(),
                v.summary.as_str(),
            )
        })
        .collect();
    let long = format!("{}\u{2026}", "y".repeat(99));
    assert_eq!(
        d,
        vec![
            ("a", "numeric", "3", "1.235 NA 3"),
            ("b", "integer", "10", "1 2 3 4 5 6 ..."),
            ("ch", "character", "3", "x NA "),
            ("e", "numeric", "0", ""),
            ("f", "factor", "2", "u v"),
            ("l", "logical", "2", "TRUE FALSE"),
            ("long", "character", "1", long.as_str()),
            ("m", "matrix", "2 x 2", "1 2 3 4"),
            ("n", "numeric", "2", "1 2"),
        ]
    );
}
