module github.com/depothq/depot/sdk/conformance/go

go 1.19

require github.com/depothq/depot/sdk/go v0.1.0

replace github.com/depothq/depot/sdk/go => ../../go
