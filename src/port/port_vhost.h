/* SPDX-License-Identifier: GPL-2.0-or-later */
/* port_vhost.h - state shared by the vhost-user port's two halves
 *
 * port_vhost.c is the control side (sockets, the protocol's queue
 * start/stop callbacks, port_ops); port_vhost_dp.c is the datapath (guest
 * TX polling, delivery into guest RX with offloads).  Nothing outside
 * src/port/ includes this.
 */
#ifndef VHOSTD_PORT_VHOST_H
#define VHOSTD_PORT_VHOST_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "port.h"
#include "../net/gso.h"
#include "../switch.h"
#include "../vhost/vu_dev.h"

#define PORT_VHOST_RX_BUFS	64	/* RX buffers one frame may span */
#define PORT_VHOST_RXQ		0
#define PORT_VHOST_TXQ		1

#define PV_FEAT(bit)		(1ULL << (bit))

/* Offloads a guest may use when sending: what struct pkt's src_feat
 * carries for gso_plan() at the destination.
 */
#define PORT_VHOST_HOST_OFFLOADS				\
	(PV_FEAT(VIRTIO_NET_F_CSUM) |				\
	 PV_FEAT(VIRTIO_NET_F_HOST_TSO4) |			\
	 PV_FEAT(VIRTIO_NET_F_HOST_TSO6) |			\
	 PV_FEAT(VIRTIO_NET_F_HOST_ECN) |			\
	 PV_FEAT(VIRTIO_NET_F_HOST_USO))

/* Offloads we can hand a guest when receiving. */
#define PORT_VHOST_GUEST_OFFLOADS				\
	(PV_FEAT(VIRTIO_NET_F_GUEST_CSUM) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_TSO4) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_TSO6) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_ECN) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_USO4) |			\
	 PV_FEAT(VIRTIO_NET_F_GUEST_USO6))

#define PORT_VHOST_FEATURES					\
	(PV_FEAT(VIRTIO_F_VERSION_1) |				\
	 PV_FEAT(VIRTIO_NET_F_MRG_RXBUF) |			\
	 PV_FEAT(VIRTIO_NET_F_MTU) |				\
	 PV_FEAT(VIRTIO_RING_F_EVENT_IDX) |			\
	 PV_FEAT(VIRTIO_RING_F_INDIRECT_DESC) |			\
	 PORT_VHOST_HOST_OFFLOADS | PORT_VHOST_GUEST_OFFLOADS)

/**
 * struct port_vhost - private state of a vhost-user port
 * @dev:	the vhost-user device
 * @port:	back pointer to the switch port
 * @path:	socket path
 * @client:	we connect to @path instead of listening on it
 * @listen_fd:	listening socket (server mode), -1 otherwise
 * @worker:	worker polling this port's TX queue
 * @tx_elems:	TX burst scratch (worker, under the TX queue lock)
 * @tx_pkts:	frames built from @tx_elems
 * @tx_pkt_ptrs: pointers to @tx_pkts, as switch_forward() takes them
 * @tx_heads:	heads to return to the used ring after forwarding
 * @rx_elems:	RX buffers for one frame (under the RX queue lock)
 */
struct port_vhost {
	struct vu_dev dev;
	struct port *port;
	char path[CONF_PATH_MAX];
	bool client;
	int listen_fd;
	unsigned int worker;
	struct virtq_elem tx_elems[SWITCH_BURST];
	struct pkt tx_pkts[SWITCH_BURST];
	struct pkt *tx_pkt_ptrs[SWITCH_BURST];
	uint16_t tx_heads[SWITCH_BURST];
	struct virtq_elem rx_elems[PORT_VHOST_RX_BUFS];
};

unsigned int port_vhost_poll(struct port *p, uint32_t cookie,
			     unsigned int budget);
bool port_vhost_arm(struct port *p, uint32_t cookie);
unsigned int port_vhost_xmit(struct port *p, struct pkt *const *pkts,
			     unsigned int n);

#endif /* VHOSTD_PORT_VHOST_H */
