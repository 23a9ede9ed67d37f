# Rho's notebook runner for R: reads JSON command lines from a pipe, runs each cell in the global
# environment, and prints its output and framed answers (STX RHO<nonce>#<seq> <json> ETX) on stdout.
# Arguments: <command pipe> <settings.json>. Needs jsonlite only.
local({
  args <- commandArgs(trailingOnly = TRUE)
  cfg <- jsonlite::fromJSON(args[[2]], simplifyVector = FALSE)
  nonce <- cfg$nonce
  lim <- cfg$limits
  plot_dir <- file.path(cfg$stateDir, "plots")
  dir.create(plot_dir, showWarnings = FALSE, recursive = TRUE)
  seq_no <- 0L
  cur_cell <- 0
  pipe <- file(args[[1]], open = "r", blocking = TRUE, raw = TRUE)

  # Frames go to stdout through a connection of their own, so a cell's sink() or capture.output()
  # never takes them.
  frames <- file("/dev/stdout", open = "w")
  # What a cell prints goes to stdout as it is printed: R's own console stdout is block-buffered
  # on a pipe (a cell's cat() before a Sys.sleep() would arrive only with its end). A fifo
  # connection on the same pipe writes at once; it is the bottom sink, under any of the cell's own.
  printed <- tryCatch(fifo("/dev/stdout", open = "w"), error = function(e) NULL, warning = function(w) NULL)
  ensure_printed_sink <- function() {
    if (!is.null(printed) && sink.number() == 0) sink(printed)
  }
  # How many sinks are Rho's own (`printed`, the bottom one): more is a sink of the cell's own.
  own_sinks <- if (is.null(printed)) 0L else 1L
  answered <- FALSE
  # What a shown value printed and has not gone out yet: it leaves in the same write as the next
  # frame (one write() per frame, never one per piece: small writes one after another stall on
  # the Nagle algorithm of ssh and srun, REMOTE.md; `frames` is unbuffered on a pipe).
  held <- ""
  capture <- NULL
  captured <- function() {
    v <- rawConnectionValue(capture)
    rawToChar(v[v != as.raw(0)])
  }
  emit <- function(x) {
    if (identical(x$t, "end") || identical(x$t, "inspect")) answered <<- TRUE
    seq_no <<- seq_no + 1L
    if (!is.null(capture)) { # a value being shown raised this: its text so far goes first
      held <<- paste0(held, captured())
      sink(); close(capture)
      capture <<- rawConnection(raw(0), "w"); sink(capture)
    }
    json <- to_json(x)
    flush(stdout()) # the cell's printed text first, then the frame after it
    cat(paste0(held, "\002RHO", nonce, "#", seq_no, " ", json, "\003"), file = frames)
    held <<- ""
    flush(frames)
  }
  out <- function(stream, text) emit(list(t = "out", stream = stream, text = text))
  cut_text <- function(s, n) {
    if (is.na(s)) return(NA_character_)
    if (nchar(s, type = "chars") > n) paste0(substr(s, 1, n - 1), "\u2026") else s
  }

  # ---- plots: one device for the session, pages kept as PNG files --------------------------
  sdev <- NULL; page_no <- 0L; page_owner <- NULL; last_dl <- NULL; cell_plots <- 0L
  open_device <- function() {
    grDevices::pdf(NULL, width = 7, height = 5)
    grDevices::dev.control("enable")
    sdev <<- grDevices::dev.cur(); page_no <<- 0L; page_owner <<- NULL; last_dl <<- NULL
  }
  snapshot <- function() {
    if (is.null(sdev) || !(sdev %in% grDevices::dev.list())) return(invisible())
    prev <- grDevices::dev.cur()
    if (prev != sdev) grDevices::dev.set(sdev)
    rec <- tryCatch(grDevices::recordPlot(), error = function(e) NULL)
    dl <- if (is.null(rec)) NULL else rec[[1]]
    if (length(dl) > 0 && !identical(dl, last_dl)) {
      cell_plots <<- cell_plots + 1L
      path <- file.path(plot_dir, sprintf("cell-%s-page-%d-%d.png", format(cur_cell, scientific = FALSE), page_no, cell_plots))
      ok <- tryCatch({
        grDevices::png(path, width = 7, height = 5, units = "in", res = 96)
        pd <- grDevices::dev.cur()
        suppressWarnings(grDevices::replayPlot(rec))
        grDevices::dev.off(pd)
        TRUE
      }, error = function(e) FALSE)
      grDevices::dev.set(sdev)
      if (ok) {
        replaces <- if (!is.null(page_owner) && page_owner$cell != cur_cell) page_owner else NULL
        emit(list(t = "plot", cell = cur_cell, page = page_no, path = path, replaces = replaces))
        page_owner <<- list(cell = cur_cell, page = page_no)
      }
      last_dl <<- dl
    }
    if (prev != sdev && prev %in% grDevices::dev.list()) grDevices::dev.set(prev)
    invisible()
  }
  new_page <- function(grid = FALSE) {
    if (is.null(sdev) || grDevices::dev.cur() != sdev) return(invisible())
    if (!grid && !isTRUE(graphics::par("page"))) return(invisible())
    snapshot()
    page_no <<- page_no + 1L; page_owner <<- NULL; last_dl <<- NULL
  }
  open_device()
  setHook("before.plot.new", function() new_page(FALSE))
  setHook("before.grid.newpage", function() new_page(TRUE))

  # ---- variables ----------------------------------------------------------------------------
  prev_vals <- list(); prev_cut <- FALSE
  size_of <- function(x) {
    if (is.data.frame(x)) return(paste(nrow(x), "x", ncol(x)))
    d <- dim(x)
    if (is.null(d)) as.character(length(x)) else paste(d, collapse = " x ")
  }
  one_line <- function(x) {
    s <- if (is.atomic(x) && is.null(dim(x)) && !is.factor(x)) {
      n <- length(x)
      v <- x[seq_len(min(6L, n))]
      v <- if (is.numeric(v)) as.character(signif(v, 4)) else as.character(v)
      v[is.na(v)] <- "NA"
      paste0(paste(v, collapse = " "), if (n > 6L) " ..." else "")
    } else if (is.data.frame(x)) {
      paste0(nrow(x), " obs. of ", ncol(x), " variables: ", paste(utils::head(names(x), 8), collapse = ", "))
    } else if (is.function(x)) {
      paste0("function(", paste(names(formals(x)), collapse = ", "), ")")
    } else if (inherits(x, "lm")) {
      paste(class(x)[1], paste(deparse(stats::formula(x)), collapse = " "))
    } else if (is.atomic(x)) {
      paste0(paste(format(utils::head(as.vector(x), 6)), collapse = " "), if (length(x) > 6) " ..." else "")
    } else if (is.list(x)) {
      paste0("list of ", length(x), if (!is.null(names(x))) paste0(": ", paste(utils::head(names(x), 6), collapse = ", ")) else "")
    } else class(x)[1]
    cut_text(paste(s, collapse = " "), 100)
  }
  safely <- function(vals, f, fallback) {
    r <- tryCatch(vapply(vals, f, "", USE.NAMES = FALSE), error = function(e) NULL)
    if (!is.null(r)) return(r)
    vapply(vals, function(x) tryCatch(f(x), error = function(e) fallback), "", USE.NAMES = FALSE)
  }
  # Plain vectors (numbers, strings, logicals: no class, no dim; what a cell defining many values
  # mostly makes) are described all at once, each exactly as size_of() and one_line() would.
  plain_class <- c(double = "numeric", integer = "integer", logical = "logical", character = "character")
  plain_lines <- function(fv) {
    n <- lengths(fv)
    k <- pmin(n, 6L)
    flat <- unlist(lapply(fv, function(x) x[seq_len(min(6L, length(x)))]), use.names = FALSE)
    txt <- if (is.numeric(flat)) as.character(signif(flat, 4)) else as.character(flat)
    txt[is.na(txt)] <- "NA"
    # Column j holds each value's j-th shown element; pasted column by column where it exists.
    at <- cumsum(c(0L, k[-length(k)]))
    lines <- character(length(fv))
    has <- k >= 1L
    lines[has] <- txt[at[has] + 1L]
    for (j in 2:6) {
      has <- k >= j
      if (any(has)) lines[has] <- paste(lines[has], txt[at[has] + j])
    }
    lines[n > 6L] <- paste0(lines[n > 6L], " ...")
    long <- nchar(lines, type = "chars") > 100
    lines[long] <- paste0(substr(lines[long], 1, 99), "\u2026")
    lines
  }
  describe <- function(fv) {
    types <- vapply(fv, typeof, "", USE.NAMES = FALSE)
    plain <- types %in% names(plain_class) & !vapply(fv, is.object, NA, USE.NAMES = FALSE) &
      lengths(lapply(fv, dim)) == 0L
    out <- list(type = character(length(fv)), size = character(length(fv)), line = character(length(fv)))
    # One type per call, so numbers are never formatted as strings.
    for (t in names(plain_class)) {
      k <- which(plain & types == t)
      if (length(k)) {
        out$type[k] <- plain_class[[t]]
        out$size[k] <- as.character(lengths(fv[k]))
        out$line[k] <- tryCatch(plain_lines(fv[k]), error = function(e) safely(fv[k], one_line, ""))
      }
    }
    other <- which(!plain)
    if (length(other)) {
      out$type[other] <- safely(fv[other], function(x) class(x)[1L], "?")
      out$size[other] <- safely(fv[other], size_of, "?")
      out$line[other] <- safely(fv[other], one_line, "")
    }
    out
  }
  # Columnar (one JSON array per field): jsonlite writes a character vector fast. A value that is
  # the same object as after the previous cell keeps its description (only changed ones cost).
  prev_desc <- list(type = character(0), size = character(0), line = character(0))
  variables <- function() {
    env <- globalenv()
    nms <- ls(env)
    vals <- mget(nms, envir = env)
    pn <- names(prev_vals)
    known <- which(nms %in% pn)
    same <- logical(length(nms))
    pv <- prev_vals[nms[known]]
    same[known] <- vapply(seq_along(known), function(j) identical(pv[[j]], vals[[known[j]]]), NA)
    defined <- nms[!same]
    shown <- seq_len(min(length(nms), lim$maxVariables))
    omitted <- length(nms) - length(shown)
    cut <- omitted > 0
    removed <- if (cut || prev_cut) NULL else I(as.character(setdiff(pn, nms)))
    need <- !same[shown] | !(nms[shown] %in% names(prev_desc$type))
    fresh <- shown[need]
    dt <- prev_desc$type[nms[shown]]; ds <- prev_desc$size[nms[shown]]; dl <- prev_desc$line[nms[shown]]
    if (length(fresh)) {
      d <- describe(vals[fresh])
      dt[need] <- d$type; ds[need] <- d$size; dl[need] <- d$line
    }
    names(dt) <- nms[shown]; names(ds) <- nms[shown]; names(dl) <- nms[shown]
    prev_vals <<- vals; prev_cut <<- cut; prev_desc <<- list(type = dt, size = ds, line = dl)
    list(variables = list(names = I(as.character(nms[shown])),
                          types = I(unname(dt)), sizes = I(unname(ds)), summaries = I(unname(dl)),
                          omitted = omitted),
         defined = I(defined), removed = removed)
  }

  # ---- cells --------------------------------------------------------------------------------
  cond_text <- function(kind, c) {
    call <- conditionCall(c)
    msg <- conditionMessage(c)
    if (is.null(call)) paste0(kind, ": ", msg, "\n")
    else paste0(kind, " in ", paste(deparse(call, nlines = 1), collapse = ""), " : ", msg, "\n")
  }
  # A value a cell shows is printed into a buffer of its own and leaves in one write: a value
  # that is not the cell's last at once, the last one with the end frame. Only when Rho's own
  # sink is the top one: a sink of the cell's own takes it.
  show_value <- function(value, last) {
    if (sink.number() != own_sinks) return(invisible(print(value)))
    capture <<- rawConnection(raw(0), "w")
    sink(capture)
    on.exit({
      sink()
      held <<- paste0(held, captured())
      close(capture); capture <<- NULL
      if (!last && nzchar(held)) {
        cat(held, file = frames); held <<- ""; flush(frames)
      }
    })
    print(value)
    invisible()
  }
  run_cell <- function(cell, code) {
    cur_cell <<- cell; cell_plots <<- 0L
    ensure_printed_sink()
    exprs <- tryCatch(parse(text = code, keep.source = FALSE), error = function(e) e)
    outcome <- if (inherits(exprs, "error")) {
      out("error", paste0("Error: ", conditionMessage(exprs), "\n")); "error"
    } else tryCatch(withCallingHandlers({
      n <- length(exprs)
      for (i in seq_len(n)) {
        r <- withVisible(eval(exprs[[i]], globalenv()))
        if (r$visible) show_value(r$value, last = i == n)
      }
      "done"
    }, message = function(m) {
      out("message", conditionMessage(m)); invokeRestart("muffleMessage")
    }, warning = function(w) {
      out("warning", cond_text("Warning", w)); invokeRestart("muffleWarning")
    }), error = function(e) {
      out("error", cond_text("Error", e)); "error"
    }, interrupt = function(i) "interrupted")
    if (is.null(sdev) || !(sdev %in% grDevices::dev.list())) open_device() else snapshot()
    v <- tryCatch(variables(), error = function(e) {
      cat("rho: listing the variables failed:", conditionMessage(e), "\n", file = stderr())
      list(variables = list(names = I(character(0)), omitted = 0), defined = I(character(0)), removed = NULL)
    })
    emit(c(list(t = "end", cell = cell, outcome = outcome), v))
  }

  env_inspect <- environment()
  source(file.path(dirname(args[[1]]), "inspect.R"), local = env_inspect)

  emit(list(t = "ready", version = paste("R", as.character(getRversion()))))
  repeat {
    line <- tryCatch(readLines(pipe, n = 1, warn = FALSE), interrupt = function(i) "", error = function(e) character(0))
    if (length(line) == 0) break # the pipe closed: the supervisor is gone
    if (!nzchar(line)) next
    cmd <- tryCatch(jsonlite::fromJSON(line, simplifyVector = FALSE), error = function(e) NULL)
    if (is.null(cmd)) next
    answered <- FALSE
    tryCatch({
      if (identical(cmd$op, "run")) run_cell(cmd$cell, cmd$code)
      else if (identical(cmd$op, "inspect")) inspect_cmd(cmd)
    }, interrupt = function(i) NULL)
    # An interrupt outside the cell's own handler (while it was set up or listed) still ends it.
    if (!answered && identical(cmd$op, "run")) {
      emit(list(t = "end", cell = cmd$cell, outcome = "interrupted", variables = list(names = I(character(0)),
        omitted = 0), defined = I(character(0)), removed = NULL))
    } else if (!answered && identical(cmd$op, "inspect")) {
      emit(list(t = "inspect", id = cmd$id, ok = FALSE, error = "interrupted", message = "interrupted"))
    }
  }
})
