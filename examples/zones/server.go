package zones

import (
	"errors"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// StartServer starts a NATS server in this process, on a free port of the
// loopback interface, and returns it with its URL.
func StartServer() (*server.Server, string, error) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true})
	if err != nil {
		return nil, "", err
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, "", errors.New("the NATS server did not start")
	}
	return s, s.ClientURL(), nil
}
