# Mixed models on the analysis bundle's long table (long.csv), the R twin of recompute.py.
# It models the data; it does not redo the report's tables (recompute.py does, with the
# report's intervals: its seeded bootstraps draw numpy's PCG64 stream, which R does not
# reproduce).
#
# One row per judgment (docs/report.md, "Analysis bundle"); rows the report leaves out
# (flagged participants, attention checks, model samples after the first) have a
# non-empty `excluded` and are dropped here as there.
#
# * accuracy: for each task and field with an answer key, a logistic mixed model
#     correct ~ 0 + rater_type + (1 | rater_id) + (1 | item_key)
#   (Laplace, nAGQ = 1) with crossed random intercepts for people (raters) and items;
#   rater_type is the human's group (group:<slug>) or the model (model:<name>[@<run>]).
# * ratings: for each rating task and dimension (`rating` true), a linear mixed model (REML)
#     value ~ 0 + rater_type + item_source + (1 | rater_id) + (1 | item_key)
#   (item_source only when the items come from more than one source).
#
# A random intercept the fixed effects already hold is left out: (1 | rater_id) when every
# rater type has one rater (models only: each model is its own rater type), (1 | item_key)
# when every item source has one item. A cell with neither left is not fitted. Each row
# says what was fitted and what went wrong (`note`: a rater type all right or all wrong,
# whose estimate is unbounded; lme4's convergence messages), and whether the fit is
# singular (a variance estimated as 0).
#
# Usage: Rscript mixed_models.R [BUNDLE_DIR]   (needs the lme4 package)
# Writes mixed_models/accuracy_fixed.csv and mixed_models/ratings_fixed.csv (UTF-8 with a
# byte order mark, empty cell = missing): one row per fixed effect, with the cell's fit.
# Text is read and written as UTF-8 whatever the locale (a C locale reads Chinese too).

suppressPackageStartupMessages(library(lme4))

read_long <- function(path) {
  # Every column as text (ids such as "007" or "T" stay as written); strings are marked
  # UTF-8 rather than re-encoded to the locale's encoding, which may lack Chinese.
  long <- read.csv(path, encoding = "UTF-8", colClasses = "character", na.strings = "",
                   check.names = FALSE)
  names(long)[1] <- sub("^\ufeff", "", enc2utf8(names(long)[1]))
  if (!"rating" %in% names(long)) stop("long.csv has no `rating` column: not a bundle's long table")
  long <- long[is.na(long$excluded), ]
  long$rater_type <- ifelse(long$rater_kind == "human", paste0("group:", long$group), long$model)
  long$item_key <- paste(long$task, long$item, sep = "/")
  long$item_source[is.na(long$item_source)] <- ""
  long
}

levels_of <- function(x) {
  # Sorted by bytes, not by the locale's collation: the same reference level and the same
  # order of rows on every machine.
  sort(unique(x), method = "radix")
}

indicators <- function(x, prefix, drop_first) {
  # One 0/1 column per level of x (the first left out as the reference when drop_first),
  # named prefix1, prefix2, ...: ASCII names whatever the labels are.
  levels <- levels_of(x)
  keep <- if (drop_first) levels[-1] else levels
  m <- vapply(keep, function(l) as.numeric(x == l), numeric(length(x)))
  m <- matrix(m, nrow = length(x))
  colnames(m) <- paste0(prefix, seq_along(keep))
  list(matrix = m, levels = keep)
}

design <- function(cell) {
  # The fixed effects (rater types; item sources after the first when more than one) and
  # the random intercepts the fixed effects leave identifiable.
  rater <- indicators(cell$rater_type, "r", FALSE)
  n_sources <- length(unique(cell$item_source))
  source <- if (n_sources > 1) indicators(cell$item_source, "s", TRUE) else NULL
  per_type <- tapply(cell$rater_id, cell$rater_type, function(x) length(unique(x)))
  per_source <- tapply(cell$item_key, cell$item_source, function(x) length(unique(x)))
  list(
    X = cbind(rater$matrix, if (!is.null(source)) source$matrix),
    effect = c(rep("rater_type", length(rater$levels)),
               rep("item_source", if (is.null(source)) 0 else length(source$levels))),
    level = c(rater$levels, if (!is.null(source)) source$levels),
    random = c(if (any(per_type > 1)) "(1 | rater_id)",
               if (any(per_source > 1)) "(1 | item_key)")
  )
}

separated <- function(cell) {
  # Rater types whose keyed answers are all right or all wrong: their logit is unbounded.
  share <- tapply(cell$y, factor(cell$rater_type, levels_of(cell$rater_type)), mean)
  hit <- names(share)[share %in% c(0, 1)]
  if (length(hit)) paste0(hit, ": all ", ifelse(share[hit] == 1, "right", "wrong"),
                          " (estimate unbounded)") else character(0)
}

unfitted <- function(base, random, note) {
  # The row of a cell not fitted (or whose fit failed), saying why.
  cbind(base, effect = NA, level = NA, estimate = NA, se = NA, statistic = NA, p_value = NA,
        sd_rater = NA, sd_item = NA, sd_residual = NA, singular = NA, random = random,
        note = note)
}

fit_cell <- function(cell, logistic) {
  d <- design(cell)
  base <- data.frame(task = cell$task[1], field = cell$field[1], n_obs = nrow(cell),
                     n_raters = length(unique(cell$rater_id)),
                     n_items = length(unique(cell$item_key)))
  notes <- if (logistic) separated(cell) else character(0)
  if (!length(d$random)) return(unfitted(base, "", "not fitted: no random intercept left to estimate"))
  frame <- data.frame(y = cell$y, rater_id = factor(cell$rater_id, levels_of(cell$rater_id)),
                      item_key = factor(cell$item_key, levels_of(cell$item_key)))
  frame$X <- d$X
  f <- as.formula(paste("y ~ 0 + X +", paste(d$random, collapse = " + ")))
  fit <- withCallingHandlers(
    tryCatch(
      if (logistic) {
        glmer(f, data = frame, family = binomial, nAGQ = 1,
              control = glmerControl(optimizer = "bobyqa", optCtrl = list(maxfun = 1e5),
                                     tolPwrss = 1e-12))
      } else {
        lmer(f, data = frame, REML = TRUE)
      },
      error = function(e) { notes <<- c(notes, conditionMessage(e)); NULL }
    ),
    warning = function(w) { notes <<- c(notes, conditionMessage(w)); invokeRestart("muffleWarning") },
    message = function(m) invokeRestart("muffleMessage")
  )
  if (is.null(fit)) return(unfitted(base, paste(d$random, collapse = " + "), paste(notes, collapse = "; ")))
  est <- withCallingHandlers(
    summary(fit)$coefficients,
    warning = function(w) { notes <<- c(notes, conditionMessage(w)); invokeRestart("muffleWarning") }
  )
  sds <- as.data.frame(VarCorr(fit))
  sd_of <- function(g) if (g %in% sds$grp) sds$sdcor[sds$grp == g] else NA
  cbind(base, effect = d$effect, level = d$level, estimate = est[, 1], se = est[, 2],
        statistic = est[, 3], p_value = if (logistic) est[, 4] else NA,
        sd_rater = sd_of("rater_id"), sd_item = sd_of("item_key"),
        sd_residual = if (logistic) NA else sigma(fit), singular = isSingular(fit),
        random = paste(d$random, collapse = " + "),
        note = paste(unique(gsub("\\s+", " ", notes)), collapse = "; "), row.names = NULL)
}

write_utf8_csv <- function(rows, path) {
  # UTF-8 with a byte order mark whatever the locale; empty cell = missing; numbers with
  # 15 significant digits.
  cell <- function(x) {
    if (is.integer(x)) {
      out <- as.character(x)
    } else if (is.numeric(x)) {
      out <- sprintf("%.15g", x)
    } else if (is.logical(x)) {
      out <- ifelse(x, "TRUE", "FALSE")
    } else {
      out <- paste0('"', gsub('"', '""', enc2utf8(as.character(x)), fixed = TRUE), '"')
    }
    out[is.na(x)] <- ""
    out
  }
  cols <- lapply(rows, cell)
  lines <- c(paste(paste0('"', names(rows), '"'), collapse = ","),
             do.call(paste, c(cols, sep = ",")))
  con <- file(path, open = "wb")
  on.exit(close(con))
  writeBin(as.raw(c(0xef, 0xbb, 0xbf)), con)
  writeLines(enc2utf8(lines), con, sep = "\n", useBytes = TRUE)
}

fit_all <- function(rows, logistic, path) {
  cells <- split(rows, list(factor(rows$task, levels_of(rows$task)),
                           factor(rows$field, levels_of(rows$field))), drop = TRUE, sep = "\r")
  fits <- lapply(cells, fit_cell, logistic = logistic)
  if (length(fits)) write_utf8_csv(do.call(rbind, unname(fits)), path)
  for (f in fits) {
    if (any(f$note != "")) message(f$task[1], "/", f$field[1], ": ", f$note[1])
  }
  if (length(fits)) basename(path) else character(0)
}

args <- commandArgs(trailingOnly = TRUE)
folder <- if (length(args) > 0) args[[1]] else "."
long <- read_long(file.path(folder, "long.csv"))
out <- file.path(folder, "mixed_models")
dir.create(out, showWarnings = FALSE)

keyed <- long[!is.na(long$correct), ]
keyed$y <- as.integer(keyed$correct == "true")
written <- fit_all(keyed, TRUE, file.path(out, "accuracy_fixed.csv"))

rated <- long[long$rating == "true" & !is.na(long$value), ]
rated$y <- as.numeric(rated$value)
written <- c(written, fit_all(rated, FALSE, file.path(out, "ratings_fixed.csv")))
if (length(written)) {
  cat("mixed models written to", out, ":", paste(written, collapse = ", "), "\n")
} else {
  cat("no mixed model to fit: the long table has no keyed answer and no rating\n")
}
