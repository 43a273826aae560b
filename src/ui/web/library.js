// The page of promptexec ui: library.
