"""Statistics of paired comparisons and intervals, in pure Python (NumPy, when installed, only makes them faster)."""
