# Mixed models on the analysis bundle's long table (long.csv), the R twin of recompute.py.
# It models the data; it does not redo the report's tables (recompute.py does, with the
# report's intervals: its seeded bootstraps draw numpy's PCG64 stream, which R does not
# reproduce).
#
# One row per judgment (docs/report.md, "Analysis bundle"); rows the report leaves out
# (flagged participants, attention checks, model samples after the first) have a
# non-empty `excluded` and are dropped here as there.
#
# * accuracy: for each task with an answer key, a logistic mixed model
#     correct ~ 0 + rater_type + (1 | rater_id) + (1 | item)
#   with crossed random intercepts for people (raters) and items; rater_type is the
#   human's group (group:<slug>) or the model (model:<name>[@<run>]).
# * ratings: for each rating task and dimension, a linear mixed model
#     value ~ 0 + rater_type + item_source + (1 | rater_id) + (1 | item)
#   (item_source only when the items come from more than one source).
#
# Usage: Rscript mixed_models.R [BUNDLE_DIR]   (needs the lme4 package)
# Writes mixed_models/accuracy_fixed.csv and mixed_models/ratings_fixed.csv.

suppressPackageStartupMessages(library(lme4))

args <- commandArgs(trailingOnly = TRUE)
folder <- if (length(args) > 0) args[[1]] else "."
long <- read.csv(file.path(folder, "long.csv"), fileEncoding = "UTF-8-BOM",
                 na.strings = "", stringsAsFactors = FALSE, check.names = FALSE)
long <- long[is.na(long$excluded) | long$excluded == "", ]
long$rater_type <- ifelse(long$rater_kind == "human", paste0("group:", long$group), long$model)
long$rater_id <- factor(long$rater_id)
long$item_key <- factor(paste(long$task, long$item, sep = "/"))

fixed <- function(fit, task, field) {
  est <- summary(fit)$coefficients
  data.frame(task = task, field = field, term = rownames(est), est, row.names = NULL,
             check.names = FALSE)
}

out <- file.path(folder, "mixed_models")
dir.create(out, showWarnings = FALSE)

keyed <- long[!is.na(long$correct), ]
keyed$correct <- as.integer(keyed$correct %in% c("true", "TRUE", TRUE))
acc <- list()
for (cell in split(keyed, list(keyed$task, keyed$field), drop = TRUE)) {
  if (length(unique(cell$rater_id)) < 2 || length(unique(cell$item_key)) < 2) next
  fit <- tryCatch(
    glmer(correct ~ 0 + rater_type + (1 | rater_id) + (1 | item_key), data = cell,
          family = binomial),
    error = function(e) { message(cell$task[1], "/", cell$field[1], ": ", conditionMessage(e)); NULL }
  )
  if (!is.null(fit)) acc[[length(acc) + 1]] <- fixed(fit, cell$task[1], cell$field[1])
}
if (length(acc)) write.csv(do.call(rbind, acc), file.path(out, "accuracy_fixed.csv"), row.names = FALSE)

rated <- long[is.na(long$correct) & !is.na(long$value) & long$rater_kind != "rule", ]
rat <- list()
for (cell in split(rated, list(rated$task, rated$field), drop = TRUE)) {
  if (length(unique(cell$rater_id)) < 2 || length(unique(cell$item_key)) < 2) next
  f <- if (length(unique(cell$item_source)) > 1) {
    value ~ 0 + rater_type + item_source + (1 | rater_id) + (1 | item_key)
  } else {
    value ~ 0 + rater_type + (1 | rater_id) + (1 | item_key)
  }
  fit <- tryCatch(lmer(f, data = cell),
                  error = function(e) { message(cell$task[1], "/", cell$field[1], ": ", conditionMessage(e)); NULL })
  if (!is.null(fit)) rat[[length(rat) + 1]] <- fixed(fit, cell$task[1], cell$field[1])
}
if (length(rat)) write.csv(do.call(rbind, rat), file.path(out, "ratings_fixed.csv"), row.names = FALSE)
cat("mixed models written to", out, "\n")
