# Rho's notebook runner for R, its inspection half (sourced by runner.R into its own scope):
# one value of the global environment described as kind, class, size, facts and a page; and the
# JSON writer of the runner's answers (jsonlite's toJSON costs ~2 ms for a small message).
inspect_missing <- function(msg) structure(class = c("rho_missing", "error", "condition"),
  list(message = msg, call = NULL))

# Resolves a path made only of names, `$name`, `@slot` and `[[constant]]` parts.
resolve <- function(expr) {
  if (is.symbol(expr)) {
    n <- as.character(expr)
    if (!exists(n, envir = globalenv(), inherits = FALSE)) stop(inspect_missing(paste("no value", n)))
    return(get(n, envir = globalenv(), inherits = FALSE))
  }
  if (!is.call(expr) || length(expr) != 3) stop("not a value's path: use names, $name, @slot and [[position]]")
  op <- as.character(expr[[1]])
  obj <- resolve(expr[[2]])
  key <- expr[[3]]
  if (op == "$" || (op == "[[" && is.character(key))) {
    k <- as.character(key)
    if (is.environment(obj)) {
      if (!exists(k, envir = obj, inherits = FALSE)) stop(inspect_missing(paste("no part", k)))
      return(get(k, envir = obj, inherits = FALSE))
    }
    if (!(k %in% names(obj))) stop(inspect_missing(paste("no part", k)))
    return(obj[[k]])
  }
  if (op == "@") return(methods::slot(obj, as.character(key)))
  if (op == "[[" && is.numeric(key) && length(key) == 1) {
    if (key < 1 || key > length(obj)) stop(inspect_missing(paste("no part", key)))
    return(obj[[key]])
  }
  stop("not a value's path: use names, $name, @slot and [[position]]")
}

# JSON string literals for a character vector (NA is null): base R's encodeString, whose escapes
# are JSON's in a UTF-8 locale except \a \v \0.. \x.. \U..; an element showing one of those
# (or a literal backslash before such a letter) is written by jsonlite instead.
utf8_locale <- isTRUE(l10n_info()[["UTF-8"]])
json_strings <- function(s) {
  out <- encodeString(s, quote = '"')
  out[is.na(s)] <- "null"
  odd <- if (utf8_locale) grepl("\\\\[av0-7xuU]", out) else !is.na(s)
  if (any(odd)) out[odd] <- vapply(s[odd], function(v) as.character(jsonlite::toJSON(v, auto_unbox = TRUE)), "")
  out
}

# JSON for the runner's messages: a named list is an object, an unnamed one an array, a vector
# of length one (unless I()) a scalar, NULL and NA null, class "json" verbatim.
to_json <- function(x) {
  if (is.null(x)) return("null")
  if (inherits(x, "json")) return(unclass(x))
  if (is.list(x)) {
    parts <- vapply(x, to_json, "", USE.NAMES = FALSE)
    nm <- names(x)
    if (is.null(nm)) return(paste0("[", paste(parts, collapse = ","), "]"))
    return(paste0("{", paste0(json_strings(nm), ":", parts, collapse = ","), "}"))
  }
  v <- if (is.character(x) || is.factor(x)) json_strings(as.character(x))
    else if (is.logical(x)) ifelse(is.na(x), "null", ifelse(x, "true", "false"))
    else if (is.numeric(x)) ifelse(is.finite(x), as.character(unclass(x)), "null")
    else json_strings(as.character(x))
  if (inherits(x, "AsIs") || length(x) != 1) paste0("[", paste(v, collapse = ","), "]") else v
}

fmt_col <- function(v, n) {
  s <- if (is.factor(v)) as.character(v)
    else if (is.numeric(v) || is.logical(v)) format(v, trim = TRUE, digits = 7)
    else if (is.character(v)) v
    else if (is.list(v)) vapply(v, function(e) paste(format(e), collapse = " "), "")
    else as.character(v)
  s[is.na(v)] <- NA_character_
  long <- !is.na(s) & nchar(s) > n
  s[long] <- paste0(substr(s[long], 1, n - 1), "\u2026")
  list(text = s, cut = long)
}

table_page <- function(x, code, offset, rows, sort) {
  n <- nrow(x); nc <- ncol(x)
  cn <- colnames(x); if (is.null(cn)) cn <- paste0("V", seq_len(nc))
  cols <- seq_len(min(nc, lim$inspectColumns))
  idx <- if (offset < n) seq.int(offset + 1, min(n, offset + rows)) else integer(0)
  refused <- NULL
  if (!is.null(sort)) {
    col <- sort$column
    if (!(col %in% cn)) refused <- paste("no column", col)
    else if (n > lim$inspectSortRows) refused <- paste0(n, " rows is over inspectSortRows ", lim$inspectSortRows)
    else {
      v <- if (is.data.frame(x)) x[[col]] else x[, col]
      ord <- order(v, decreasing = isTRUE(sort$descending), method = "radix")
      idx <- ord[idx]
    }
  }
  page <- x[idx, cols, drop = FALSE]
  cells <- lapply(cols, function(j) fmt_col(if (is.data.frame(page)) page[[j]] else page[, j], lim$inspectCellChars))
  # The rows are written as JSON text here: jsonlite is slow on many small lists.
  rows_out <- if (length(idx) == 0) "[]" else {
    vals <- do.call(paste, c(lapply(cells, function(c) json_strings(c$text)), sep = ","))
    cutm <- do.call(cbind, lapply(cells, function(c) c$cut))
    cuts <- apply(cutm, 1, function(r) if (any(r)) paste0(',"cut":[', paste(which(r), collapse = ","), "]") else "")
    paste0("[", paste0('{"index":', format(idx, scientific = FALSE, trim = TRUE), ',"values":[', vals, "]", cuts, "}",
                       collapse = ","), "]")
  }
  rows_out <- structure(rows_out, class = "json")
  columns <- lapply(cols, function(j) {
    v <- if (is.data.frame(x)) x[[j]] else x[, j]
    list(name = cn[[j]], type = class(v)[1], position = j,
         code = if (is.data.frame(x)) sprintf("%s[[%s]]", code, deparse(cn[[j]])) else sprintf("%s[, %d]", code, j),
         path = if (is.data.frame(x)) sprintf("%s[[%d]]", code, j) else sprintf("%s[, %d]", code, j))
  })
  r <- list(kind = "table", size = list(rows = n, columns = nc), facts = list(rows = n, columns = nc),
            columns = columns, columnsTotal = nc, total = n, offset = offset, page = list(rows = rows_out))
  if (!is.null(sort)) r$sorted <- list(column = sort$column, descending = isTRUE(sort$descending), done = is.null(refused))
  if (!is.null(refused)) r$sortRefused <- refused
  r
}

model_page <- function(x, code) {
  s <- tryCatch(summary(x), error = function(e) NULL)
  co <- if (!is.null(s) && !is.null(s$coefficients) && is.matrix(s$coefficients)) s$coefficients else {
    cf <- stats::coef(x); matrix(cf, ncol = 1, dimnames = list(names(cf), "Estimate"))
  }
  coefs <- lapply(seq_len(nrow(co)), function(i) {
    row <- as.list(co[i, ]); names(row) <- colnames(co)
    c(list(term = rownames(co)[[i]]), row)
  })
  fit <- list(nobs = tryCatch(stats::nobs(x), error = function(e) NULL))
  if (!is.null(s$r.squared)) { fit$rSquared <- s$r.squared; fit$adjRSquared <- s$adj.r.squared; fit$sigma <- s$sigma }
  if (!is.null(s$fstatistic)) fit$fStatistic <- unname(s$fstatistic[[1]])
  if (!is.null(x$aic)) fit$aic <- x$aic
  if (!is.null(x$deviance)) { fit$deviance <- x$deviance; fit$nullDeviance <- x$null.deviance }
  if (!is.null(x$df.residual)) fit$dfResidual <- x$df.residual
  if (!is.null(x$family)) fit$family <- paste(x$family$family, x$family$link)
  formula <- tryCatch(paste(deparse(stats::formula(x)), collapse = " "), error = function(e) NULL)
  list(kind = "model", size = list(coefficients = nrow(co)), facts = list(formula = formula),
       fit = fit, coefficients = coefs, total = nrow(co),
       parts = lapply(seq_along(names(x)), function(i) list(name = names(x)[[i]], position = i,
         code = sprintf("%s$%s", code, names(x)[[i]]), path = sprintf("%s[[%d]]", code, i))))
}

vector_page <- function(x, code, offset, rows) {
  n <- length(x)
  idx <- if (offset < n) seq.int(offset + 1, min(n, offset + rows)) else integer(0)
  f <- fmt_col(x[idx], lim$inspectCellChars)
  nm <- names(x)
  els <- lapply(seq_along(idx), function(i) {
    e <- list(index = idx[[i]], value = f$text[[i]])
    if (!is.null(nm)) e$name <- nm[[idx[[i]]]]
    if (f$cut[[i]]) e$cut <- TRUE
    e
  })
  facts <- list(type = typeof(x), length = n, missing = sum(is.na(x)))
  if (is.numeric(x) && n > 0 && !all(is.na(x))) {
    facts$min <- min(x, na.rm = TRUE); facts$max <- max(x, na.rm = TRUE); facts$mean <- mean(x, na.rm = TRUE)
  }
  if (is.factor(x)) { facts$levels <- nlevels(x); facts$firstLevels <- as.list(utils::head(levels(x), 20)) }
  list(kind = "vector", size = list(length = n), facts = facts, total = n, offset = offset,
       page = list(elements = els))
}

list_page <- function(x, code, offset) {
  n <- length(x); nm <- names(x)
  idx <- if (offset < n) seq.int(offset + 1, min(n, offset + lim$inspectChildren)) else integer(0)
  parts <- lapply(idx, function(i) {
    v <- x[[i]]
    p <- list(position = i, class = class(v)[1], size = tryCatch(size_of(v), error = function(e) "?"),
              summary = tryCatch(one_line(v), error = function(e) class(v)[1]), path = sprintf("%s[[%d]]", code, i))
    if (!is.null(nm) && nzchar(nm[[i]])) { p$name <- nm[[i]]; p$code <- sprintf("%s[[%s]]", code, deparse(nm[[i]])) }
    else p$code <- p$path
    p
  })
  list(kind = "list", size = list(length = n), facts = list(length = n), total = n, offset = offset,
       page = list(parts = parts))
}

text_of <- function(lines) {
  s <- paste(lines, collapse = "\n")
  max <- lim$inspectTextBytes
  if (nchar(s, type = "bytes") <= max) return(list(text = s, cut = FALSE))
  list(text = strtrim(s, max), cut = TRUE)
}

describe_value <- function(x, code, offset, rows, sort) {
  r <- if (is.data.frame(x) || (is.matrix(x) && length(dim(x)) == 2)) table_page(x, code, offset, rows, sort)
    else if (inherits(x, c("lm", "glm")) || (is.list(x) && !is.null(x$coefficients) && !is.null(x$call))) model_page(x, code)
    else if (is.function(x)) {
      t <- text_of(deparse(x))
      list(kind = "function", size = list(arguments = length(formals(x))),
           facts = list(arguments = as.list(names(formals(x)))), text = t$text, cut = t$cut)
    } else if (is.atomic(x) && length(x) == 1 && is.null(names(x)) && is.null(dim(x)) && !is.factor(x)) {
      t <- text_of(format(x))
      list(kind = "value", size = list(length = 1L), facts = list(type = typeof(x)),
           value = if (is.na(x)) NULL else t$text, cut = t$cut)
    } else if (is.atomic(x)) vector_page(x, code, offset, rows)
    else if (is.list(x)) list_page(x, code, offset)
    else {
      t <- text_of(utils::capture.output(utils::str(x)))
      list(kind = "other", size = list(), facts = list(type = typeof(x)), text = t$text, cut = t$cut)
    }
  c(list(code = code, class = as.list(class(x))), r, list(afterCell = cur_cell))
}

inspect_cmd <- function(cmd) {
  answer <- tryCatch({
    expr <- parse(text = cmd$path, keep.source = FALSE)
    if (length(expr) != 1) stop("not a value's path")
    x <- resolve(expr[[1]])
    list(ok = TRUE, value = describe_value(x, cmd$path, as.numeric(cmd$offset), as.numeric(cmd$rows), cmd$sort))
  }, rho_missing = function(e) list(ok = FALSE, error = "missing", message = conditionMessage(e)),
     error = function(e) list(ok = FALSE, error = "failed", message = conditionMessage(e)),
     interrupt = function(i) list(ok = FALSE, error = "interrupted", message = "interrupted"))
  emit(c(list(t = "inspect", id = cmd$id), answer))
}
