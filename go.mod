module github.com/codemodehq/codemode

go 1.26.0

require (
	connectrpc.com/connect/v2 v2.0.2
	github.com/coder/websocket v1.8.15
	github.com/fastschema/qjs v0.0.6
	github.com/google/uuid v1.6.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/tdewolff/parse/v2 v2.8.20
	github.com/tetratelabs/wazero v1.9.0
	go.uber.org/goleak v1.3.0
	golang.org/x/text v0.14.0
	google.golang.org/protobuf v1.36.12
)

require github.com/oklog/run v1.2.0
