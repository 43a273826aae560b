// The page of promptexec ui: reports.
