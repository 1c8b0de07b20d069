public enum FixtureKitPlaceholder {}
