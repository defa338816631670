module github.com/depothq/depot/sdk/go

go 1.19
