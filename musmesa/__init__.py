"""musmesa, the distribution's own package: the `mus` command line over every other package."""
