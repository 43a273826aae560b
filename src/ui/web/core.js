// The page of promptexec ui: core.
