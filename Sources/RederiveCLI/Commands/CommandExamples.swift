/// The examples that end each command's `--help`.
extension RederiveCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Build a demo database, derive it, and show what it holds:", arguments: "demo"),
        HelpExample(purpose: "Derive every stale record of a database with 8 workers:", arguments: "run --db rooms.sqlite --parallel 8"),
    ]
}

extension DemoCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Build rederive-demo.sqlite in this directory and derive it:", arguments: "demo"),
        HelpExample(purpose: "A smaller demo in another file:", arguments: "demo --count 200 --db /tmp/demo.sqlite"),
    ]
}

extension ImportCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Import every *.json below a folder, keyed by file name:", arguments: "import --db rooms.sqlite ~/Exports/"),
        HelpExample(purpose: "Import two files, compressing faster:", arguments: "import --db rooms.sqlite --level 1 a.json b.json"),
    ]
}

extension ExportCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Write every payload out as KEY.json files that import reads back:", arguments: "export --db rooms.sqlite exports"),
        HelpExample(purpose: "Only the first 100 kitchens:", arguments: "export --db rooms.sqlite kitchens --where \"scan_id LIKE 'kitchen-%'\" --limit 100"),
    ]
}

extension RunCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Derive every stale record with 8 workers:", arguments: "run --db rooms.sqlite --parallel 8"),
        HelpExample(purpose: "Show what a run would change, without writing anything:", arguments: "run --db rooms.sqlite --dry-run --report dry-run.html"),
    ]
}

extension WatchCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Derive records as they become stale, until stopped:", arguments: "watch --db rooms.sqlite --parallel 4"),
        HelpExample(purpose: "Look at least every 2 s, and give a stop 30 s to commit:", arguments: "watch --db rooms.sqlite --poll-interval 2 --drain-timeout 30"),
    ]
}

extension StatusCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Per processor, records up to date, stale and failed:", arguments: "status --db rooms.sqlite"),
        HelpExample(purpose: "The same as JSON, for a script:", arguments: "status --db rooms.sqlite --format json"),
    ]
}

extension FailuresCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "The records that failed, one line per record and cause:", arguments: "failures --db rooms.sqlite"),
        HelpExample(purpose: "What one run's failures were, as CSV:", arguments: "failures --db rooms.sqlite --run 3 --format csv"),
    ]
}

extension InvalidateCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Derive one processor again for every record, and what reads it:", arguments: "invalidate --db rooms.sqlite --processor floor_area --downstream"),
        HelpExample(purpose: "Derive two records again:", arguments: "invalidate --db rooms.sqlite --key scan-17 --key scan-18"),
    ]
}

extension HistoryCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "The ten newest runs:", arguments: "history --db rooms.sqlite --limit 10"),
    ]
}

extension GenerateCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "10,000 synthetic room scans, 2 % of them broken:", arguments: "generate --db synthetic.sqlite --count 10000 --corrupt 0.02"),
    ]
}

extension BackupCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "A verified copy of the database, while the app writes to it:", arguments: "backup --db rooms.sqlite --to rooms-backup.sqlite"),
    ]
}

extension RestoreCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Replace the database with a verified backup (the app must be closed):", arguments: "restore --db rooms.sqlite rooms-backup.sqlite"),
    ]
}

extension RollbackCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Put back the values that run 12 replaced:", arguments: "rollback --db rooms.sqlite 12"),
    ]
}

extension ResetCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Forget every stamp and derived value of a development database:", arguments: "reset --db dev.sqlite --yes"),
    ]
}

extension VerifyCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Check the stored values of 1,000 records at random:", arguments: "verify --db rooms.sqlite --sample 1000"),
        HelpExample(purpose: "Check every record of a restored backup:", arguments: "verify --db restored.sqlite --all"),
    ]
}

extension ProjectionsCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "How many records have a current projection:", arguments: "projections --db rooms.sqlite"),
        HelpExample(purpose: "Drop every projection; the next run writes them again:", arguments: "projections --db rooms.sqlite --drop"),
    ]
}

extension ReportCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "The state of the database as one HTML page:", arguments: "report --db rooms.sqlite rooms.html"),
    ]
}

extension MigrateCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "List the registered migrations, applied and pending:", arguments: "migrate --db rooms.sqlite --list"),
        HelpExample(purpose: "Apply the pending ones after a verified backup:", arguments: "migrate --db rooms.sqlite --backup"),
    ]
}

extension PauseCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Hold every worker of a pipeline, on every host:", arguments: "pause --db rooms.sqlite --pipeline roomscan"),
        HelpExample(purpose: "Hold only the work that derives one processor:", arguments: "pause --db rooms.sqlite --processor floor_area"),
    ]
}

extension ResumeCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "Let paused workers claim again:", arguments: "resume --db rooms.sqlite --pipeline roomscan"),
    ]
}

extension CancelCommand: ExampleCommand {
    static let examples = [
        HelpExample(purpose: "End the run in progress, keeping what it committed:", arguments: "cancel --db rooms.sqlite --pipeline roomscan"),
    ]
}
