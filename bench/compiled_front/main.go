// A floor for #52, in bench/ only: what a compiled front costs per call when it does the
// carriage alone (a CONNECT, TLS with the leaf detour's CA signs, HTTP/1.1) and answers a fixed
// body, with no replica app, check or record behind it. bench/compiled_front.py builds it with
// Go's standard library alone (no module is fetched) and measures it as the stack is measured.
//
//	front PORT CHAIN_PEM KEY_PEM BODY
package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
)

// carry answers one client: its CONNECT, then each request on the tunnel, until it closes.
func carry(conn net.Conn, config *tls.Config, body []byte) {
	defer conn.Close()
	connect, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil || connect.Method != http.MethodConnect {
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	tunnel := tls.Server(conn, config)
	requests := bufio.NewReader(tunnel)
	for {
		request, err := http.ReadRequest(requests)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, request.Body); err != nil {
			return
		}
		head := fmt.Sprintf("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n", len(body))
		if _, err := tunnel.Write(append([]byte(head), body...)); err != nil {
			return
		}
	}
}

func main() {
	if len(os.Args) != 5 {
		log.Fatal("usage: front PORT CHAIN_PEM KEY_PEM BODY")
	}
	leaf, err := tls.LoadX509KeyPair(os.Args[2], os.Args[3])
	if err != nil {
		log.Fatal(err)
	}
	config := &tls.Config{Certificates: []tls.Certificate{leaf}, NextProtos: []string{"http/1.1"}}
	listener, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	for {
		conn, err := listener.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go carry(conn, config, []byte(os.Args[4]))
	}
}
