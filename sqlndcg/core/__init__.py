"""Metric names, settings (the spec) and the renderer of the SQL templates: the layer everything else stands on."""
