"""One module per verb: what a user asks for, from inputs to results, through one session."""
