"""The statistical methods a user chooses by name: kept apart from the code that runs them, so the command line can
list them without importing it."""

#: Corrections for testing several metrics (and systems) at once: the family-wise error rate (Holm, Bonferroni)
#: or the false discovery rate (Benjamini-Hochberg, "bh").
CORRECTIONS = ("holm", "bonferroni", "bh", "none")

#: Bootstrap intervals: the percentile interval, and BCa (bias-corrected and accelerated).
BOOTSTRAPS = ("percentile", "bca")
