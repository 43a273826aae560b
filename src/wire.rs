//! Enums whose values travel as fixed strings (in config files, packs, reports and
//! transcripts). [`wire_enum!`] writes each wire name once, on the variant; the
//! serde impls, `as_str` and the table the resolvers choose from all come from it.

/// Declares an enum with one wire name per variant:
///
/// ```ignore
/// wire_enum! {
///     /// Doc comment.
///     pub enum Phase { Before = "before", After = "after" }
/// }
/// ```
///
/// It gets `as_str`, `from_wire`, `WIRE`, `NAMES` (the `(name, value)` table that
/// [`crate::doc::Checker::choice`] takes), `Display`, and serde impls that use the
/// same names.
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value with its wire name, in declaration order.
            $vis const WIRE: &'static [(&'static str, $name)] = &[ $( ($wire, $name::$variant) ),+ ];

            /// Every wire name, in declaration order.
            $vis const NAMES: &'static [&'static str] = &[ $( $wire ),+ ];

            /// The name this value has in files and reports.
            $vis fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $wire ),+ }
            }

            /// The value a wire name stands for.
            $vis fn from_wire(name: &str) -> Option<Self> {
                Self::WIRE.iter().find(|(wire, _)| *wire == name).map(|(_, value)| *value)
            }

        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                Self::from_wire(&name)
                    .ok_or_else(|| ::serde::de::Error::unknown_variant(&name, Self::NAMES))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::wire_enum! {
        enum Sample { First = "first_one", Second = "second" }
    }

    #[test]
    fn names_round_trip_through_serde() {
        assert_eq!(Sample::First.as_str(), "first_one");
        assert_eq!(Sample::from_wire("second"), Some(Sample::Second));
        assert_eq!(Sample::from_wire("third"), None);
        let json = serde_json::to_string(&Sample::First).expect("serializes");
        assert_eq!(json, "\"first_one\"");
        let back: Sample = serde_json::from_str("\"second\"").expect("a known name");
        assert_eq!(back, Sample::Second);
        let err = serde_json::from_str::<Sample>("\"nope\"")
            .expect_err("an unknown name")
            .to_string();
        assert!(err.contains("first_one"), "{err}");
    }
}
