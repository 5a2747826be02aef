package server

import (
	"fmt"
	"net/http"
)

const DefaultPort = 8080

const (
	ModeFast = iota
	ModeSlow
)

var counter int

type Server struct {
	Port int
	mux  *http.ServeMux
}

type Handler interface {
	Serve(w http.ResponseWriter, r *http.Request)
}

type ID = string

type Stack[T any] struct {
	items []T
}

func NewServer(port int) *Server {
	return &Server{Port: port}
}

func (s *Server) Start() error {
	return fmt.Errorf("port %d", s.Port)
}

func (s Server) String() string {
	return "server"
}

func (st *Stack[T]) Push(v T) {
	st.items = append(st.items, v)
}
