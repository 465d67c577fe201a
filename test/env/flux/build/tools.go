//go:build tools

// The controller's main package, built as `go build github.com/fluxcd/kustomize-controller`: this
// import only keeps it (and its dependencies) in go.mod.
package tools

import _ "github.com/fluxcd/kustomize-controller"
