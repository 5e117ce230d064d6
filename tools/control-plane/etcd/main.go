// The etcd server of one etcd release, built from its server module: the release's own main
// package lives in go.etcd.io/etcd/v3, which the module proxy does not serve.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
