"""Plain-Python statements of rules whose package form is columnar: the oracles the property tests compare the package with."""
