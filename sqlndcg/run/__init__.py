"""A session with an engine: connections, inputs, their checks, and each engine's quirks (engines/)."""
