// The page of promptexec ui: editor.
