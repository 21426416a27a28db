package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/types"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/rafthttp"
	"go.uber.org/zap"
)

// Timings of a real etcd, as etcd's own integration framework sets them: a
// heartbeat every 10ms and an election after 100ms without one, so that a
// cut-off member notices within a tenth of a second.
const (
	tickMs     = 10
	electionMs = 100
	// startTimeout bounds how long a cluster may take to elect a leader.
	startTimeout = 10 * time.Second
	// portAttempts is how many sets of ports a start tries before it gives
	// up: a port picked free can be taken by another process before etcd
	// binds it.
	portAttempts = 5
)

// A peer connection's server side reads with a deadline that it renews
// before every read, so after a member closes, the handlers of its peers'
// connections linger until that deadline: five seconds by default. Members
// here talk to each other every 10ms, so a second is plenty, and a closed
// member is gone a second later.
func init() { rafthttp.ConnReadTimeout = time.Second }

// member is one etcd server embedded in this process.
type member struct {
	name      string
	peerURL   string
	clientURL string
	etcd      *embed.Etcd
	client    *clientv3.Client
}

// etcdCluster is one real etcd cluster of n members on loopback, each with
// its data in its own folder under dir.
type etcdCluster struct {
	name    string
	dir     string
	members []*member
}

// pickPort returns a loopback port that was free a moment ago. The lab's
// tests replace it to hand out a port that is taken.
var pickPort = func() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startCluster starts n members named name-1..name-n, one after another
// (started together, each waits seconds for the others), and waits until
// they have a leader and a client connected to each. A port that turns out
// to be taken is not a failure: the whole cluster is torn down and started
// again on other ports, up to portAttempts times.
func startCluster(name string, n int) (*etcdCluster, error) {
	var err error
	for range portAttempts {
		var c *etcdCluster
		c, err = tryStart(name, n)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) && !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
	}
	return nil, fmt.Errorf("starting %s: every set of ports tried was taken: %w", name, err)
}

func tryStart(name string, n int) (_ *etcdCluster, err error) {
	dir, err := os.MkdirTemp("", "onehistory-lab-"+name+"-")
	if err != nil {
		return nil, err
	}
	c := &etcdCluster{name: name, dir: dir}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	var initial []string
	for i := 1; i <= n; i++ {
		pp, err := pickPort()
		if err != nil {
			return nil, err
		}
		cp, err := pickPort()
		if err != nil {
			return nil, err
		}
		m := &member{
			name:      fmt.Sprintf("%s-%d", name, i),
			peerURL:   fmt.Sprintf("http://127.0.0.1:%d", pp),
			clientURL: fmt.Sprintf("http://127.0.0.1:%d", cp),
		}
		c.members = append(c.members, m)
		initial = append(initial, m.name+"="+m.peerURL)
	}
	for _, m := range c.members {
		cfg := embed.NewConfig()
		cfg.Name = m.name
		cfg.Dir = dir + "/" + m.name
		pu, _ := url.Parse(m.peerURL)
		cu, _ := url.Parse(m.clientURL)
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = name
		cfg.ClusterState = embed.ClusterStateFlagNew
		cfg.TickMs, cfg.ElectionMs = tickMs, electionMs
		cfg.UnsafeNoFsync = true // the lab is about agreement, not disks
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", m.name, err)
		}
		m.etcd = e
	}
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	for _, m := range c.members {
		select {
		case <-m.etcd.Server.ReadyNotify():
		case err := <-m.etcd.Err():
			return nil, fmt.Errorf("%s: %w", m.name, err)
		case <-deadline.C:
			return nil, fmt.Errorf("%s had no leader after %s", name, startTimeout)
		}
	}
	for _, m := range c.members {
		m.client, err = clientv3.New(clientv3.Config{
			Endpoints:       []string{m.clientURL},
			DialTimeout:     2 * time.Second,
			Logger:          zap.NewNop(),
			MaxUnaryRetries: 1,
		})
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", m.name, err)
		}
	}
	return c, nil
}

// isolate cuts member i off from every other member, both ways, as etcd's
// integration framework does; clients still reach it.
func (c *etcdCluster) isolate(i int) {
	for j, o := range c.members {
		if j == i {
			continue
		}
		c.members[i].etcd.Server.CutPeer(o.id())
		o.etcd.Server.CutPeer(c.members[i].id())
	}
}

// rejoin ends isolate(i).
func (c *etcdCluster) rejoin(i int) {
	for j, o := range c.members {
		if j == i {
			continue
		}
		c.members[i].etcd.Server.MendPeer(o.id())
		o.etcd.Server.MendPeer(c.members[i].id())
	}
}

func (m *member) id() types.ID { return m.etcd.Server.MemberID() }

// stop closes every client, stops every member without the courtesy of
// handing over leadership (HardStop), closes the members together (about a
// second in all, where Close one after another takes five), and removes
// their folders.
func (c *etcdCluster) stop() {
	for _, m := range c.members {
		if m.client != nil {
			m.client.Close()
		}
	}
	for _, m := range c.members {
		if m.etcd != nil {
			m.etcd.Server.HardStop()
		}
	}
	// Each Close waits up to a second for its peer connections to go idle:
	// close the members together.
	var wg sync.WaitGroup
	for _, m := range c.members {
		if m.etcd != nil {
			wg.Go(m.etcd.Close)
		}
	}
	wg.Wait()
	os.RemoveAll(c.dir)
}

// ready waits until every member agrees there is a leader, or ctx ends.
func (c *etcdCluster) ready(ctx context.Context) error {
	for _, m := range c.members {
		if _, err := m.client.Get(clientv3.WithRequireLeader(ctx), "ready"); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
	}
	return nil
}
