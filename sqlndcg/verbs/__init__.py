"""One module per verb: what a user asks for, from inputs to results, through one session. :mod:`.scoring` is
the machinery the verbs that compute metrics share (read, check and plan the inputs; run the statement)."""
