// The page of promptexec ui: stats.
